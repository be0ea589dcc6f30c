"""The embedded volume endpoint (Cinder v3 subset) for uWSGI, gunicorn or mod_wsgi."""

from nova.wsgi import app

application = app.init_application('volume')

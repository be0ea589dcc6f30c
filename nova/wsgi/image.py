"""The embedded image endpoint (Glance v2 subset) for uWSGI, gunicorn or mod_wsgi."""

from nova.wsgi import app

application = app.init_application('image')

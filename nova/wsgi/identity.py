"""The noauth2 identity stand-in (a Keystone v3 subset) for uWSGI, gunicorn or mod_wsgi."""

from nova.wsgi import app

application = app.init_application('identity')

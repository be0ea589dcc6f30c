"""The compute API as a WSGI application: ``nova.wsgi.osapi_compute:application``."""

from nova.wsgi import app

application = app.init_application('osapi_compute')

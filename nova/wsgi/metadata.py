"""The metadata API as a WSGI application: ``nova.wsgi.metadata:application``."""

from nova.wsgi import app

application = app.init_application('metadata')

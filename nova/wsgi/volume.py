"""The embedded volume endpoint (Cinder v3 subset) as a WSGI application, e.g. ``module = nova.wsgi.volume:application``."""

from nova.wsgi import app

application = app.init_application('volume')

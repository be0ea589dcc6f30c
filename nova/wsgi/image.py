"""The embedded image endpoint (Glance v2 subset) as a WSGI application, e.g. ``module = nova.wsgi.image:application``."""

from nova.wsgi import app

application = app.init_application('image')

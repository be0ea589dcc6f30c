# The compute API for Apache mod_wsgi (etc/apache2/nova-api.conf): mod_wsgi
# loads a script file, and this one only imports the application.
from nova.wsgi.osapi_compute import application  # noqa: F401

"""WSGI entry points (``application``) for uWSGI, gunicorn or mod_wsgi."""

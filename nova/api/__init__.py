"""The compute API v2.1 WSGI application."""

"""Handlers of the version documents (GET /, GET /v3/) and the read-only volume types."""

from nova.embedded.volume import errors, manager, views
from nova.embedded.volume.common import json_response


def list_versions(api, req):
    """GET /: 300 Multiple Choices, as Cinder answers unversioned requests."""
    return json_response(views.versions(req.application_url), status=300)


def show_v3(api, req):
    """GET /v3/: the same document with 200."""
    return json_response(views.versions(req.application_url))


def list_types(api, req):
    return json_response({'volume_types': [
        views.volume_type(manager.DEFAULT_TYPE)]})


def show_type(api, req, type_id):
    if type_id not in ('default', manager.DEFAULT_TYPE['id']):
        raise errors.NotFound('Volume type %s could not be found.' % type_id)
    return json_response({'volume_type': views.volume_type(
        manager.DEFAULT_TYPE)})

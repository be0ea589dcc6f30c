"""Per-tag image routes and the discovery and cache routes of the embedded image endpoint."""

import webob
import webob.exc

from nova.embedded.image import access, handlers, store

# Glance's image_tag_quota default.
TAG_QUOTA = 128
MAX_TAG_LENGTH = 255
STORE_ID = 'file'


def _tag_check(who, image_id, verb):
    """Glance's order: 404 when unseen, 403 when seen but not the caller's."""
    def check(record):
        if not access.can_see(record, who):
            raise store.NotFound('Image %s not found.' % image_id)
        if not access.owns(record, who):
            raise webob.exc.HTTPForbidden(
                explanation='Not allowed to %s tags for image %s.' % (verb, image_id))
    return check


def add_tag(api, req, image_id, tag_value):
    """PUT /v2/images/{id}/tags/{tag}: 204; adding a tag it has changes nothing."""
    who = access.caller(req)
    if len(tag_value) > MAX_TAG_LENGTH:
        raise webob.exc.HTTPBadRequest(
            explanation="Provided object does not match schema 'image': %r is too long"
                        % tag_value)
    check = _tag_check(who, image_id, 'update')

    def mutate(record):
        check(record)
        if tag_value in record['tags']:
            return
        if len(record['tags']) >= TAG_QUOTA:
            raise webob.exc.HTTPRequestEntityTooLarge(
                explanation='Image tag limit exceeded for image %s: Attempted: %d, '
                            'Maximum: %d:' % (image_id, len(record['tags']) + 1, TAG_QUOTA))
        record['tags'].append(tag_value)
    api.store.update(image_id, mutate)
    return webob.Response(status=204)


def delete_tag(api, req, image_id, tag_value):
    """DELETE /v2/images/{id}/tags/{tag}: 204, or 404 for a tag the image lacks."""
    who = access.caller(req)
    check = _tag_check(who, image_id, 'delete')

    def mutate(record):
        check(record)
        if tag_value not in record['tags']:
            raise webob.exc.HTTPNotFound()
        record['tags'].remove(tag_value)
    api.store.update(image_id, mutate)
    return webob.Response(status=204)


def import_info(api, req):
    """GET /v2/info/import: this endpoint takes image data by upload only."""
    access.caller(req)
    return handlers.json_response({'import-methods': {
        'description': 'Import methods available.', 'type': 'array', 'value': []}})


def stores_info(api, req):
    """GET /v2/info/stores: the one file store, the default."""
    access.caller(req)
    return handlers.json_response({'stores': [{
        'id': STORE_ID, 'description': 'Files under the all-in-one state path.',
        'default': 'true'}]})


def cache(api, req, image_id=None):
    """The cache API, as Glance answers when it keeps no image cache.

    Its policies are admin-only (403 for others); an administrator learns
    that caching is not supported here (404), as from a Glance without
    ``image_cache_dir``.
    """
    if not access.caller(req).is_admin:
        raise webob.exc.HTTPForbidden()
    raise webob.exc.HTTPNotFound(explanation='Caching via API is not supported at this site.')

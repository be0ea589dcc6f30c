"""WSGI entry point and the single route table of the embedded Glance v2 endpoint."""

import logging
import re
import uuid

import webob.dec
import webob.exc

from nova.embedded.image import handlers as h
from nova.embedded.image import listing, store
from nova.embedded.image import members as m
from nova.embedded.image import metadefs as md
from nova.embedded.image import tags_and_info as ti

LOG = logging.getLogger(__name__)

_ID = r'(?P<image_id>[^/]+)'
_NS = r'(?P<namespace>[^/]+)'
_NAME = r'(?P<name>[^/]+)'
ROUTES = (
    (r'/', {'GET': h.list_versions}),
    (r'/versions', {'GET': h.list_versions_explicit}),
    (r'/v2', {'GET': h.list_versions}),
    (r'/v2/schemas/(?P<name>[^/]+)', {'GET': h.show_schema}),
    (r'/v2/images', {'GET': h.list_images, 'POST': h.create_image}),
    (r'/v2/images/' + _ID, {'GET': h.show_image, 'PATCH': h.update_image,
                            'DELETE': h.delete_image}),
    (r'/v2/images/' + _ID + '/file', {'GET': h.download_data,
                                      'PUT': h.upload_data}),
    (r'/v2/images/' + _ID + '/tasks', {'GET': h.show_image_tasks}),
    (r'/v2/images/' + _ID + '/members', {'GET': m.list_members,
                                         'POST': m.create_member}),
    (r'/v2/images/' + _ID + '/members/(?P<member_id>[^/]+)',
     {'GET': m.show_member, 'PUT': m.update_member,
      'DELETE': m.delete_member}),
    (r'/v2/images/' + _ID + '/tags/(?P<tag_value>[^/]+)',
     {'PUT': ti.add_tag, 'DELETE': ti.delete_tag}),
    (r'/v2/info/import', {'GET': ti.import_info}),
    (r'/v2/info/stores', {'GET': ti.stores_info}),
    (r'/v2/cache', {'GET': ti.cache, 'DELETE': ti.cache}),
    (r'/v2/cache/' + _ID, {'PUT': ti.cache, 'DELETE': ti.cache}),
    (r'/v2/metadefs/namespaces', {'GET': md.list_namespaces, 'POST': md.read_only}),
    (r'/v2/metadefs/namespaces/' + _NS, {'GET': md.show_namespace, 'PUT': md.read_only,
                                         'DELETE': md.read_only}),
    (r'/v2/metadefs/namespaces/' + _NS + '/properties',
     {'GET': md.list_properties, 'POST': md.read_only, 'DELETE': md.read_only}),
    (r'/v2/metadefs/namespaces/' + _NS + '/properties/' + _NAME,
     {'GET': md.show_property, 'PUT': md.read_only, 'DELETE': md.read_only}),
    (r'/v2/metadefs/namespaces/' + _NS + '/objects',
     {'GET': md.list_objects, 'POST': md.read_only, 'DELETE': md.read_only}),
    (r'/v2/metadefs/namespaces/' + _NS + '/objects/' + _NAME,
     {'GET': md.show_object, 'PUT': md.read_only, 'DELETE': md.read_only}),
    (r'/v2/metadefs/namespaces/' + _NS + '/tags',
     {'GET': md.list_tags, 'POST': md.read_only, 'DELETE': md.read_only}),
    (r'/v2/metadefs/namespaces/' + _NS + '/resource_types',
     {'GET': md.namespace_resource_types, 'POST': md.read_only}),
    (r'/v2/metadefs/resource_types', {'GET': md.list_resource_types}),
)
# A trailing slash is tolerated everywhere, as Glance's router does.
_COMPILED = tuple((re.compile('^' + path.rstrip('/') + '/?$'), methods)
                  for path, methods in ROUTES)

_STORE_ERRORS = (
    (store.NotFound, webob.exc.HTTPNotFound),
    (store.Conflict, webob.exc.HTTPConflict),
    (store.Forbidden, webob.exc.HTTPForbidden),
    (store.Gone, webob.exc.HTTPGone),
    (store.BadRequest, webob.exc.HTTPBadRequest),
)


def _http_error(exc):
    """Map a store or query error to the HTTP error Glance would send."""
    if isinstance(exc, listing.BadQuery):
        return webob.exc.HTTPBadRequest(explanation=str(exc))
    for error_class, http_class in _STORE_ERRORS:
        if isinstance(exc, error_class):
            return http_class(explanation=str(exc))
    raise TypeError(exc)


class ImageAPI:
    """The embedded image service as a WSGI application."""

    def __init__(self, data_dir):
        self.store = store.ImageStore(data_dir)

    def _route(self, req):
        for pattern, methods in _COMPILED:
            match = pattern.match(req.path_info)
            if match is None:
                continue
            handler = methods.get(req.method)
            if handler is None:
                raise webob.exc.HTTPMethodNotAllowed(
                    headers={'Allow': ', '.join(sorted(methods))})
            return handler, match.groupdict()
        raise webob.exc.HTTPNotFound()

    @webob.dec.wsgify
    def __call__(self, req):
        # The request id middleware's, when it runs in front (all-in-one).
        request_id = req.environ.get('openstack.request_id') or 'req-' + str(uuid.uuid4())
        try:
            handler, kwargs = self._route(req)
            resp = handler(self, req, **kwargs)
        except webob.exc.HTTPException as exc:
            resp = exc
        except (store.StoreError, listing.BadQuery) as exc:
            resp = _http_error(exc)
        except UnicodeDecodeError:
            # A path or query string whose percent-escapes are not UTF-8.
            resp = webob.exc.HTTPBadRequest(
                explanation='The request path or query string is not valid UTF-8.')
        except Exception:
            LOG.exception('%s %s failed', req.method, req.path)
            resp = webob.exc.HTTPInternalServerError()
        resp.headers['x-openstack-request-id'] = request_id
        return resp


def make_app(data_dir):
    """Build the embedded image endpoint storing everything under data_dir."""
    return ImageAPI(data_dir)

"""WSGI entry point and the single route table of the embedded Cinder v3 endpoint."""

import logging
import re
import uuid

import webob.dec

from nova.embedded.volume import attachments as att
from nova.embedded.volume import common, discovery, errors, manager
from nova.embedded.volume import microversion as mv
from nova.embedded.volume import snapshots as snap
from nova.embedded.volume import type_handlers as types
from nova.embedded.volume import volumes as vol

LOG = logging.getLogger(__name__)

_ID = r'/(?P<%s>[^/]+)'
# Paths below /v3/{project_id} (or /v3 alone, as Cinder allows since 3.67):
# (path, {method: handler}, lowest microversion serving it).
ROUTES = (
    ('/volumes', {'GET': vol.list_volumes, 'POST': vol.create_volume},
     mv.MIN_VERSION),
    ('/volumes/detail', {'GET': vol.list_volumes_detail}, mv.MIN_VERSION),
    ('/volumes' + _ID % 'volume_id',
     {'GET': vol.show_volume, 'PUT': vol.update_volume,
      'DELETE': vol.delete_volume}, mv.MIN_VERSION),
    ('/volumes' + _ID % 'volume_id' + '/action', {'POST': vol.volume_action},
     mv.MIN_VERSION),
    ('/snapshots', {'GET': snap.list_snapshots, 'POST': snap.create_snapshot},
     mv.MIN_VERSION),
    ('/snapshots/detail', {'GET': snap.list_snapshots_detail},
     mv.MIN_VERSION),
    ('/snapshots' + _ID % 'snapshot_id',
     {'GET': snap.show_snapshot, 'PUT': snap.update_snapshot,
      'DELETE': snap.delete_snapshot}, mv.MIN_VERSION),
    ('/snapshots' + _ID % 'snapshot_id' + '/action',
     {'POST': snap.snapshot_action}, mv.MIN_VERSION),
    ('/attachments', {'GET': att.list_attachments,
                      'POST': att.create_attachment}, mv.NEW_ATTACH),
    ('/attachments/detail', {'GET': att.list_attachments_detail},
     mv.NEW_ATTACH),
    ('/attachments' + _ID % 'attachment_id',
     {'GET': att.show_attachment, 'PUT': att.update_attachment,
      'DELETE': att.delete_attachment}, mv.NEW_ATTACH),
    ('/attachments' + _ID % 'attachment_id' + '/action',
     {'POST': att.attachment_action}, mv.NEW_ATTACH),
    ('/types', {'GET': types.list_types, 'POST': types.create_type},
     mv.MIN_VERSION),
    ('/types' + _ID % 'type_id',
     {'GET': types.show_type, 'PUT': types.update_type,
      'DELETE': types.delete_type}, mv.MIN_VERSION),
    ('/types' + _ID % 'type_id' + '/extra_specs',
     {'GET': types.list_specs, 'POST': types.create_specs}, mv.MIN_VERSION),
    ('/types' + _ID % 'type_id' + '/extra_specs' + _ID % 'key',
     {'GET': types.show_spec, 'PUT': types.update_spec,
      'DELETE': types.delete_spec}, mv.MIN_VERSION),
    ('/limits', {'GET': discovery.show_limits}, mv.MIN_VERSION),
    ('/extensions', {'GET': discovery.list_extensions}, mv.MIN_VERSION),
    ('/os-quota-sets' + _ID % 'target_project', {'GET': discovery.show_quota_set},
     mv.MIN_VERSION),
    ('/os-quota-sets' + _ID % 'target_project' + '/defaults',
     {'GET': discovery.show_quota_defaults}, mv.MIN_VERSION),
)
_COMPILED = tuple((re.compile('^%s$' % path), methods, min_version)
                  for path, methods, min_version in ROUTES)
# First path segments that name a collection, not a project (3.67 URLs).
_COLLECTIONS = frozenset(path.split('/')[1] for path, _, _ in ROUTES)
_SCOPED = re.compile(r'^/v3/(?P<first>[^/]+)(?P<rest>/.*)?$')


def _find(rest, version):
    for pattern, methods, min_version in _COMPILED:
        match = pattern.match(rest)
        if match is None:
            continue
        if version < min_version:
            break
        return methods, match.groupdict()
    raise errors.NotFound('The resource could not be found.')


def _caller(req, path_project):
    # The deployment's auth wrapper (nova.api.auth.protect) put the
    # validated identity there; client-sent identity headers never count.
    ctx = req.environ.get('nova.context')
    if ctx is None or not ctx.project_id:
        raise errors.Unauthorized('The request you have made requires '
                                  'authentication.')
    if path_project and path_project != ctx.project_id:
        raise errors.BadRequest(
            "Malformed request URL: URL's project_id '%s' doesn't match "
            "Context's project_id '%s'" % (path_project, ctx.project_id))
    return common.Caller(project_id=ctx.project_id, user_id=ctx.user_id,
                         is_admin=bool(ctx.is_admin), context=ctx)


class VolumeAPI:
    """The embedded volume service as a WSGI application."""

    def __init__(self, data_dir, image_fetcher=None, volume_format='qcow2'):
        self.manager = manager.VolumeManager(data_dir, image_fetcher,
                                             volume_format)

    def _dispatch(self, req, extra_headers):
        path = req.path_info.rstrip('/') or '/'
        if path == '/':
            return self._call(req, {'GET': discovery.list_versions}, {})
        if path == '/v3':
            return self._call(req, {'GET': discovery.show_v3}, {})
        match = _SCOPED.match(path)
        if match is None:
            raise errors.NotFound('The resource could not be found.')
        first, rest = match.group('first'), match.group('rest') or ''
        if first in _COLLECTIONS:
            project_id, rest = None, '/' + first + rest
        else:
            project_id = first
        req.version = mv.from_request(req.headers)
        extra_headers.update(mv.response_headers(req.version))
        methods, kwargs = _find(rest, req.version)
        req.caller = _caller(req, project_id)
        return self._call(req, methods, kwargs)

    def _call(self, req, methods, kwargs):
        handler = methods.get(req.method)
        if handler is None:
            raise errors.MethodNotAllowed(
                'The method %s is not allowed for this resource.' % req.method,
                headers={'Allow': ', '.join(sorted(methods))})
        return handler(self, req, **kwargs)

    @webob.dec.wsgify(RequestClass=common.VolumeRequest)
    def __call__(self, req):
        # The request id middleware's, when it runs in front (all-in-one).
        headers = {'x-openstack-request-id': req.environ.get('openstack.request_id')
                   or 'req-' + str(uuid.uuid4())}
        try:
            resp = self._dispatch(req, headers)
        except errors.VolumeAPIError as exc:
            resp = common.json_response(errors.fault_body(exc.code,
                                                          exc.message),
                                        status=exc.code)
            headers.update(exc.headers)
        except UnicodeDecodeError:
            # A path or query string whose percent-escapes are not UTF-8.
            resp = common.json_response(errors.fault_body(
                400, 'The request path or query string is not valid UTF-8.'), status=400)
        except Exception:
            LOG.exception('%s %s failed', req.method, req.path)
            resp = common.json_response(errors.fault_body(
                500, 'The server has either erred or is incapable of '
                     'performing the requested operation.'), status=500)
        resp.headers.update(headers)
        return resp


def make_app(data_dir, image_fetcher=None, volume_format='qcow2'):
    """Build the embedded volume endpoint storing everything under data_dir.

    ``image_fetcher(context, image_id, dest_path)`` writes an image's data
    to dest_path, reading it as the caller of ``context`` (a
    RequestContext), and may return the Glance image dict (whose disk_format
    and properties are then used); without it, volumes cannot come from images.
    ``volume_format`` ('qcow2' or 'raw') is the format of new volume files.
    """
    return VolumeAPI(data_dir, image_fetcher, volume_format)

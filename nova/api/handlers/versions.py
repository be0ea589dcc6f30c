"""Version discovery documents at / and /v2.1."""

from nova.api import microversion as mv
from nova.api import wsgi

_UPDATED = '2013-07-23T11:33:21Z'
_UPDATED_V2 = '2011-01-21T11:33:21Z'


def _root(req):
    return req.app.link_prefix(req).rsplit('/v2.1', 1)[0]


def _v20(req):
    """The legacy v2.0 entry upstream still lists, DEPRECATED, without microversions."""
    return {
        'id': 'v2.0', 'status': 'DEPRECATED', 'version': '', 'min_version': '',
        'updated': _UPDATED_V2,
        'links': [{'rel': 'self', 'href': _root(req) + '/v2/'},
                  {'rel': 'describedby', 'type': 'text/html',
                   'href': 'https://docs.openstack.org/'}],
        'media-types': [{'base': 'application/json',
                         'type': 'application/vnd.openstack.compute+json;version=2'}],
    }


def _v21(req):
    return {
        'id': 'v2.1',
        'status': 'CURRENT',
        'version': mv.MAX_VERSION,
        'min_version': mv.MIN_VERSION,
        'updated': _UPDATED,
        'links': [{'rel': 'self', 'href': req.app.link_prefix(req) + '/'},
                  {'rel': 'describedby', 'type': 'text/html',
                   'href': 'https://docs.openstack.org/'}],
        'media-types': [{'base': 'application/json',
                         'type': 'application/vnd.openstack.compute+json;version=2.1'}],
    }


def index(req):
    """GET /: every API version this service offers: v2.0 (deprecated) and v2.1."""
    versions = []
    for version in (_v20(req), _v21(req)):
        del version['media-types']
        version['links'] = version['links'][:1]
        versions.append(version)
    return wsgi.json_response({'versions': versions})


def show_v20(req):
    """GET /v2 and /v2/: the legacy v2.0 document."""
    return wsgi.json_response({'version': _v20(req)})


def show_v21(req):
    """GET /v2.1 and /v2.1/: the v2.1 document with the microversion range."""
    return wsgi.json_response({'version': _v21(req)})

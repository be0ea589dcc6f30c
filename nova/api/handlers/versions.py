"""Version discovery documents at / and /v2.1."""

from nova.api import microversion as mv
from nova.api import wsgi

_UPDATED = '2013-07-23T11:33:21Z'


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
    """GET /: every API version this service offers (only v2.1)."""
    version = _v21(req)
    del version['media-types']
    version['links'] = [{'rel': 'self', 'href': req.app.link_prefix(req) + '/'}]
    return wsgi.json_response({'versions': [version]})


def show_v21(req):
    """GET /v2.1 and /v2.1/: the v2.1 document with the microversion range."""
    return wsgi.json_response({'version': _v21(req)})

"""The all-in-one's identity stand-in (noauth2 only): a Keystone v3 subset for clients.

openstackclient resolves projects through Keystone before it reads or sets
quotas, and learns which services exist from a token's catalog. Under
noauth2 every user and project exists, named by its id, any password is
accepted, the user "admin" is an administrator, and the token is
"user:project", which is what the noauth2 compute API expects.
"""

import json
import uuid

import webob
import webob.dec

from nova import strict_json

_MEDIA = [{'base': 'application/json', 'type': 'application/vnd.openstack.identity-v3+json'}]
_DOMAIN = {'id': 'default', 'name': 'Default'}


def _json(body, status=200, headers=None):
    resp = webob.Response(status=status, content_type='application/json', charset=None)
    resp.body = json.dumps(body).encode()
    resp.headers.update(headers or {})
    return resp


def _error(code, title, message):
    return _json({'error': {'code': code, 'title': title, 'message': message}}, status=code)


def _version(base):
    return {'id': 'v3.14', 'status': 'stable', 'updated': '2020-04-07T00:00:00Z',
            'links': [{'rel': 'self', 'href': base + '/v3/'}], 'media-types': _MEDIA}


def _project(base, project_id):
    return {'id': project_id, 'name': project_id, 'domain_id': 'default',
            'description': '', 'enabled': True, 'is_domain': False,
            'parent_id': 'default', 'tags': [], 'options': {},
            'links': {'self': '%s/v3/projects/%s' % (base, project_id)}}


def _named(spec):
    return (spec or {}).get('name') or (spec or {}).get('id')


class IdentityStub:
    """Version documents, project reads and password tokens carrying a catalog."""

    def __init__(self, endpoints):
        # [(service type, name, url template with %(project_id)s)]
        self.endpoints = endpoints

    def _catalog(self, project_id, base):
        entries = list(self.endpoints)
        if not any(kind == 'identity' for kind, _n, _u in entries):
            # Served on its own (nova.wsgi.identity): it is where the client asked.
            entries.append(('identity', 'keystone', base.replace('%', '%%')))
        return [{'type': kind, 'name': name, 'id': uuid.uuid5(uuid.NAMESPACE_URL, kind).hex,
                 'endpoints': [{'id': uuid.uuid5(uuid.NAMESPACE_URL, url).hex,
                                'interface': interface, 'region': 'RegionOne',
                                'region_id': 'RegionOne',
                                'url': url % {'project_id': project_id}}
                               for interface in ('public', 'internal', 'admin')]}
                for kind, name, url in entries]

    def _token(self, req, base):
        try:
            auth = strict_json.loads(req.body)['auth']
            user = _named(auth['identity']['password']['user'])
            project = _named((auth.get('scope') or {}).get('project')) or user
        except (ValueError, KeyError, TypeError, AttributeError):
            return _error(400, 'Bad Request', 'Only password authentication is served here.')
        if not all(isinstance(n, str) and n.isascii() and n.isprintable() and ':' not in n
                   for n in (user, project)):
            # They travel in the X-Subject-Token header as user:project.
            return _error(400, 'Bad Request', 'User and project names must be printable '
                                              'ASCII without colons.')
        roles = ['reader', 'member'] + (['admin'] if user == 'admin' else [])
        token = {'methods': ['password'], 'audit_ids': [uuid.uuid4().hex[:22]],
                 'user': {'id': user, 'name': user, 'domain': _DOMAIN,
                          'password_expires_at': None},
                 'project': {'id': project, 'name': project, 'domain': _DOMAIN},
                 'roles': [{'id': r, 'name': r} for r in roles],
                 'issued_at': '2020-01-01T00:00:00.000000Z',
                 'expires_at': '2999-01-01T00:00:00.000000Z',
                 'catalog': self._catalog(project, base)}
        return _json({'token': token}, status=201,
                     headers={'X-Subject-Token': '%s:%s' % (user, project)})

    @webob.dec.wsgify
    def __call__(self, req):
        try:
            return self._route(req)
        except UnicodeDecodeError:
            return _error(400, 'Bad Request', 'The request path or query string is not '
                                              'valid UTF-8.')

    def _route(self, req):
        base = req.application_url.rstrip('/')
        parts = [p for p in req.path_info.split('/') if p]
        if parts == ['v3', 'auth', 'tokens'] and req.method == 'POST':
            return self._token(req, base)
        if req.method not in ('GET', 'HEAD'):
            # Under noauth2 every project and user exists once a token names
            # it: there is nothing to create. Say where real ones come from.
            return _error(405, 'Method Not Allowed',
                          'This stand-in identity endpoint (noauth2) creates no projects, '
                          'users or roles: every USER:PROJECT token names its own. Run the '
                          'all-in-one with Keystone to manage them (doc/source/admin/'
                          'keystone.rst).')
        if not parts:
            return _json({'versions': {'values': [_version(base)]}}, status=300)
        if parts == ['v3']:
            return _json({'version': _version(base)})
        if parts == ['v3', 'projects']:
            name = req.GET.get('name')
            return _json({'projects': [_project(base, name)] if name else [],
                          'links': {'self': base + '/v3/projects', 'next': None,
                                    'previous': None}})
        if len(parts) == 3 and parts[:2] == ['v3', 'projects']:
            return _json({'project': _project(base, parts[2])})
        return _error(404, 'Not Found', 'The resource could not be found.')

"""Personas sharing projects, and catalog endpoints in a region of their own, on the test Keystone.

Built on nova.tests.functional.keystone (the Keystone of tools/keystone.sh). Everything
made here carries a unique suffix and is deleted by cleanup(), so tests can share that
Keystone, and this test's catalog entries never mix with RegionOne's.
"""

import uuid

from nova.tests.functional import keystone

_IDENTITY = {'service_type': 'identity', 'interface': 'public'}


class Keystone:
    """Admin calls as the bootstrap admin; remembers what to delete."""

    def __init__(self):
        self.suffix = uuid.uuid4().hex[:8]
        self.admin = keystone.admin_session()
        self._undo = []
        self._roles = None

    def name(self, base):
        return '%s-%s' % (base, self.suffix)

    def _post(self, path, key, body):
        obj = self.admin.post(path, endpoint_filter=_IDENTITY,
                              json={key: body}).json()[key]
        self._undo.append(lambda: self.admin.delete('%s/%s' % (path, obj['id']),
                                                    endpoint_filter=_IDENTITY,
                                                    raise_exc=False))
        return obj

    def project(self, base):
        return self._post('/projects', 'project', {'name': self.name(base),
                                                   'domain_id': 'default'})

    def user(self, base, project, roles):
        user = self._post('/users', 'user', {
            'name': self.name(base), 'domain_id': 'default',
            'password': keystone.PASSWORD, 'default_project_id': project['id']})
        if self._roles is None:
            self._roles = {r['name']: r['id'] for r in self.admin.get(
                '/roles', endpoint_filter=_IDENTITY).json()['roles']}
        for role in roles:
            self.admin.put('/projects/%s/users/%s/roles/%s'
                           % (project['id'], user['id'], self._roles[role]),
                           endpoint_filter=_IDENTITY)
        return user

    def token(self, user, project):
        return keystone._session(user['name'], project['name']).get_token()

    def region(self, base):
        return self._post('/regions', 'region', {'id': self.name(base)})

    def endpoint(self, service_type, url, region, interfaces=('public', 'internal')):
        """Register ``url`` for ``service_type`` in ``region``."""
        services = self.admin.get('/services?type=' + service_type,
                                  endpoint_filter=_IDENTITY).json()['services']
        service = services[0] if services else self._post(
            '/services', 'service', {'type': service_type, 'name': self.name(service_type)})
        for interface in interfaces:
            self._post('/endpoints', 'endpoint', {
                'service_id': service['id'], 'interface': interface,
                'region_id': region['id'], 'url': url})

    def cleanup(self):
        for undo in reversed(self._undo):
            try:
                undo()
            except Exception:  # noqa: BLE001 - best effort; keep deleting the rest.
                pass
        self._undo = []

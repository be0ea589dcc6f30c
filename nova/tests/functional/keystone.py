"""A real Keystone for functional tests: skip without one, admin session, throwaway users."""

import dataclasses
import os
import urllib.request
import uuid

import pytest

# tools/keystone.sh serves one on loopback with these defaults.
KEYSTONE_URL = os.environ.get('NOVA_TEST_KEYSTONE_URL', 'http://127.0.0.1:5000/v3').rstrip('/')
PASSWORD = os.environ.get('NOVA_COMPAT_PASSWORD', 'compat-test-secret')
SERVICE_USER = os.environ.get('NOVA_COMPAT_SERVICE_USER', 'nova')
SERVICE_PROJECT = os.environ.get('NOVA_COMPAT_SERVICE_PROJECT', 'service')
REGION = 'RegionOne'
_IDENTITY = {'service_type': 'identity', 'interface': 'public'}


def keystone_answers(url=None):
    """True when the Identity v3 version document answers."""
    try:
        with urllib.request.urlopen(url or KEYSTONE_URL, timeout=3) as resp:
            return resp.status == 200
    except OSError:
        return False


def require_keystone():
    """Skip the calling test unless a Keystone answers at NOVA_TEST_KEYSTONE_URL."""
    if not keystone_answers():
        pytest.skip('Keystone not answering at %s (start one with tools/keystone.sh, or set '
                    'NOVA_TEST_KEYSTONE_URL)' % KEYSTONE_URL)


def _session(username, project_name, password=PASSWORD):
    from keystoneauth1 import session
    from keystoneauth1.identity import v3
    auth = v3.Password(auth_url=KEYSTONE_URL, username=username, password=password,
                       project_name=project_name, user_domain_id='default',
                       project_domain_id='default')
    return session.Session(auth=auth, timeout=60)


def admin_session():
    """A keystoneauth1 Session scoped to the admin project as the bootstrap admin."""
    return _session('admin', 'admin')


@dataclasses.dataclass
class Credentials:
    """A throwaway project and user; ``token`` is scoped to that project."""

    project_id: str
    project_name: str
    user_id: str
    username: str
    password: str
    roles: tuple
    token: str

    def session(self):
        return _session(self.username, self.project_name, self.password)


def _role_ids(admin):
    roles = admin.get('/roles', endpoint_filter=_IDENTITY).json()['roles']
    return {role['name']: role['id'] for role in roles}


def make_credentials(admin, roles=('member', 'reader'), prefix='nova-test'):
    """Create a fresh project and user holding ``roles`` on it; return Credentials."""
    name = '%s-%s' % (prefix, uuid.uuid4().hex[:10])
    project = admin.post('/projects', endpoint_filter=_IDENTITY, json={'project': {
        'name': name, 'domain_id': 'default'}}).json()['project']
    user = admin.post('/users', endpoint_filter=_IDENTITY, json={'user': {
        'name': name, 'domain_id': 'default', 'password': PASSWORD,
        'default_project_id': project['id']}}).json()['user']
    role_ids = _role_ids(admin)
    for role in roles:
        admin.put('/projects/%s/users/%s/roles/%s' % (project['id'], user['id'],
                                                      role_ids[role]),
                  endpoint_filter=_IDENTITY)
    creds = Credentials(project['id'], name, user['id'], name, PASSWORD, tuple(roles), '')
    creds.token = creds.session().get_token()
    return creds


def delete_credentials(admin, creds):
    """Remove the user and project of make_credentials (missing ones are fine)."""
    admin.delete('/users/' + creds.user_id, endpoint_filter=_IDENTITY, raise_exc=False)
    admin.delete('/projects/' + creds.project_id, endpoint_filter=_IDENTITY, raise_exc=False)


def register_endpoints(admin, service_type, url, name=None,
                       interfaces=('public', 'internal')):
    """Add a catalog service of ``service_type`` (reusing an existing one) with endpoints.

    Returns the new endpoint ids for remove_endpoints. Existing endpoints of that type stay;
    give a distinct ``service_type`` or clean up when tests must not see two.
    """
    services = admin.get('/services?type=%s' % service_type,
                         endpoint_filter=_IDENTITY).json()['services']
    if services:
        service_id = services[0]['id']
    else:
        service_id = admin.post('/services', endpoint_filter=_IDENTITY, json={'service': {
            'type': service_type, 'name': name or service_type}}).json()['service']['id']
    ids = []
    for interface in interfaces:
        endpoint = admin.post('/endpoints', endpoint_filter=_IDENTITY, json={'endpoint': {
            'service_id': service_id, 'interface': interface, 'region_id': REGION,
            'url': url}}).json()['endpoint']
        ids.append(endpoint['id'])
    return ids


def remove_endpoints(admin, endpoint_ids):
    for endpoint_id in endpoint_ids:
        admin.delete('/endpoints/' + endpoint_id, endpoint_filter=_IDENTITY, raise_exc=False)


def authtoken_options():
    """[keystone_authtoken] settings for a service validating tokens at this Keystone,
    as the ``extra`` overrides of fixtures.make_conf / RunningAio."""
    values = {
        'www_authenticate_uri': KEYSTONE_URL, 'auth_url': KEYSTONE_URL,
        'auth_type': 'password', 'username': SERVICE_USER, 'password': PASSWORD,
        'project_name': SERVICE_PROJECT, 'user_domain_name': 'Default',
        'project_domain_name': 'Default', 'region_name': REGION,
    }
    return {('keystone_authtoken', key): value for key, value in values.items()}


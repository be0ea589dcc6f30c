"""A real Keystone for functional tests: throw-away projects, users, tokens and endpoints.

Needs the Keystone that tools/keystone.sh starts (http://127.0.0.1:5000/v3, or
NOVA_TEST_KEYSTONE_URL) and its bootstrap admin's password (NOVA_COMPAT_PASSWORD,
or OS_PASSWORD in ${NOVA_COMPAT_DIR}/keystone.env). Everything made here has a
unique suffix and is deleted by cleanup(), so tests can share that Keystone.
"""

import os
import urllib.request
import uuid

import pytest
from keystoneauth1 import session as ksa_session
from keystoneauth1.identity import v3

DEFAULT_URL = 'http://127.0.0.1:5000/v3'
PASSWORD = 'test-' + uuid.uuid4().hex  # of the throw-away users only


def keystone_url():
    return os.environ.get('NOVA_TEST_KEYSTONE_URL', DEFAULT_URL).rstrip('/')


def _admin_password():
    if os.environ.get('NOVA_COMPAT_PASSWORD'):
        return os.environ['NOVA_COMPAT_PASSWORD']
    env = os.path.join(os.environ.get('NOVA_COMPAT_DIR', '/var/lib/nova-compat'),
                       'keystone.env')
    try:
        with open(env) as handle:
            for line in handle:
                key, _sep, value = line.strip().removeprefix('export ').partition('=')
                if key == 'OS_PASSWORD':
                    return value.strip('\'"')
    except OSError:
        pass
    return 'compat-test-secret'


def require_keystone():
    """Skip the test unless a Keystone answers."""
    try:
        with urllib.request.urlopen(keystone_url(), timeout=5):
            return
    except Exception as exc:  # noqa: BLE001 - any failure means "not here".
        pytest.skip('no Keystone at %s (start one with tools/keystone.sh): %s'
                    % (keystone_url(), exc))


def session_for(username, password, project_name):
    auth = v3.Password(auth_url=keystone_url(), username=username, password=password,
                       project_name=project_name, user_domain_id='default',
                       project_domain_id='default')
    return ksa_session.Session(auth=auth)


class Keystone:
    """Admin calls through python-keystoneclient; remembers what to delete."""

    def __init__(self):
        from keystoneclient.v3 import client
        self.suffix = uuid.uuid4().hex[:8]
        self.client = client.Client(session=session_for('admin', _admin_password(),
                                                        'admin'))
        self._undo = []

    def name(self, base):
        return '%s-%s' % (base, self.suffix)

    def project(self, base):
        project = self.client.projects.create(self.name(base), 'default')
        self._undo.append(lambda: self.client.projects.delete(project))
        return project

    def user(self, base, project, roles):
        user = self.client.users.create(self.name(base), domain='default',
                                        password=PASSWORD, default_project=project)
        self._undo.append(lambda: self.client.users.delete(user))
        for role in roles:
            self.client.roles.grant(self.client.roles.find(name=role), user=user,
                                    project=project)
        return user

    def token(self, user, project):
        return session_for(user.name, PASSWORD, project.name).get_token()

    def region(self, base):
        region = self.client.regions.create(id=self.name(base))
        self._undo.append(lambda: self.client.regions.delete(region))
        return region

    def endpoint(self, service_type, url, region, interfaces=('public', 'internal')):
        """Register ``url`` for ``service_type`` in ``region``."""
        services = self.client.services.list(type=service_type)
        if services:
            service = services[0]
        else:
            service = self.client.services.create(self.name(service_type),
                                                  type=service_type)
            self._undo.append(lambda: self.client.services.delete(service))
        for interface in interfaces:
            endpoint = self.client.endpoints.create(service, url, interface=interface,
                                                    region=region)
            self._undo.append(lambda e=endpoint: self.client.endpoints.delete(e))

    def cleanup(self):
        for undo in reversed(self._undo):
            try:
                undo()
            except Exception:  # noqa: BLE001 - best effort; keep deleting the rest.
                pass
        self._undo = []

"""Create the compatibility tests' Keystone projects, users, roles and catalog (idempotent).

Run by tools/keystone.sh with only the standard library, so it works in any Python 3.
Reads NOVA_COMPAT_DIR, NOVA_COMPAT_PASSWORD, NOVA_COMPAT_KEYSTONE_URL and the endpoint
URLs (NOVA_COMPAT_COMPUTE_URL, NOVA_COMPAT_IMAGE_URL, NOVA_COMPAT_VOLUME_URL); writes
keystone.env and keystone_authtoken.conf into NOVA_COMPAT_DIR.
"""

import json
import os
import sys
import urllib.error
import urllib.request

URL = os.environ.get('NOVA_COMPAT_KEYSTONE_URL', 'http://127.0.0.1:5000/v3').rstrip('/')
PASSWORD = os.environ.get('NOVA_COMPAT_PASSWORD', 'compat-test-secret')
COMPAT_DIR = os.environ.get('NOVA_COMPAT_DIR', '/var/lib/nova-compat')
REGION = 'RegionOne'

# project -> [(user, [roles])]: the service user gets admin for keystonemiddleware's
# token validation and service for service-to-service calls.
USERS = {
    'service': [('nova', ['admin', 'service'])],
    'demo': [('demo', ['member', 'reader']), ('reader', ['reader'])],
    'alt': [('alt', ['member'])],
}

_COMPUTE = os.environ.get('NOVA_COMPAT_COMPUTE_URL', 'http://127.0.0.1:8774/v2.1')
_IMAGE = os.environ.get('NOVA_COMPAT_IMAGE_URL', 'http://127.0.0.1:9292')
_VOLUME = os.environ.get('NOVA_COMPAT_VOLUME_URL',
                         'http://127.0.0.1:8776/v3/%(project_id)s')
# service type -> (service name, URL); public and internal interfaces share the URL.
CATALOG = {
    'compute': ('nova', _COMPUTE),
    'image': ('glance', _IMAGE),
    'volumev3': ('cinderv3', _VOLUME),
    'block-storage': ('cinder', _VOLUME),
}
INTERFACES = ('public', 'internal')


class Keystone:
    """The few Identity v3 calls this script needs, as the bootstrap admin."""

    def __init__(self):
        body = {'auth': {
            'identity': {'methods': ['password'], 'password': {'user': {
                'name': 'admin', 'domain': {'id': 'default'}, 'password': PASSWORD}}},
            'scope': {'project': {'name': 'admin', 'domain': {'id': 'default'}}}}}
        self.token = None
        _body, headers = self.call('POST', '/auth/tokens', body)
        self.token = headers['X-Subject-Token']

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(URL + path, data=data, method=method)
        req.add_header('Content-Type', 'application/json')
        if self.token:
            req.add_header('X-Auth-Token', self.token)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                text = resp.read()
                return (json.loads(text) if text else {}), resp.headers
        except urllib.error.HTTPError as exc:
            raise SystemExit('keystone: %s %s -> %s %s'
                             % (method, path, exc.code, exc.read()[:500]))

    def list(self, collection):
        return self.call('GET', '/' + collection)[0][collection]

    def create(self, collection, body):
        key = collection[:-1]
        return self.call('POST', '/' + collection, {key: body})[0][key]


# Each step lists a whole collection once and creates only what is missing: on a busy
# machine every Keystone call costs seconds, and this runs at every start.
def ensure_users(ks):
    roles = {r['name']: r['id'] for r in ks.list('roles')}
    projects = {p['name']: p for p in ks.list('projects') if p['domain_id'] == 'default'}
    users = {u['name']: u for u in ks.list('users') if u['domain_id'] == 'default'}
    assigned = {(a['scope']['project']['id'], a['user']['id'], a['role']['id'])
                for a in ks.list('role_assignments')
                if 'project' in a.get('scope', {}) and 'user' in a}
    ids = {}
    for project_name, members in USERS.items():
        if project_name not in projects:
            projects[project_name] = ks.create(
                'projects', {'name': project_name, 'domain_id': 'default'})
        project_id = ids[project_name] = projects[project_name]['id']
        for user_name, user_roles in members:
            if user_name not in users:
                users[user_name] = ks.create('users', {
                    'name': user_name, 'domain_id': 'default', 'password': PASSWORD,
                    'default_project_id': project_id})
            user_id = users[user_name]['id']
            for role in user_roles:
                if (project_id, user_id, roles[role]) not in assigned:
                    ks.call('PUT', '/projects/%s/users/%s/roles/%s'
                            % (project_id, user_id, roles[role]))
    return ids


def ensure_catalog(ks):
    services = {s['type']: s for s in ks.list('services')}
    endpoints = {(e['service_id'], e['interface'], e['region_id']): e
                 for e in ks.list('endpoints')}
    for service_type, (name, url) in CATALOG.items():
        if service_type not in services:
            services[service_type] = ks.create(
                'services', {'type': service_type, 'name': name, 'enabled': True})
        service_id = services[service_type]['id']
        for interface in INTERFACES:
            found = endpoints.get((service_id, interface, REGION))
            if found is None:
                ks.create('endpoints', {'service_id': service_id, 'interface': interface,
                                        'region_id': REGION, 'url': url, 'enabled': True})
            elif found['url'] != url:
                ks.call('PATCH', '/endpoints/' + found['id'], {'endpoint': {'url': url}})


def write_files(project_ids):
    env = {
        'OS_AUTH_TYPE': 'password', 'OS_AUTH_URL': URL, 'OS_IDENTITY_API_VERSION': '3',
        'OS_USERNAME': 'admin', 'OS_PASSWORD': PASSWORD, 'OS_PROJECT_NAME': 'admin',
        'OS_USER_DOMAIN_NAME': 'Default', 'OS_PROJECT_DOMAIN_NAME': 'Default',
        'OS_REGION_NAME': REGION, 'OS_INTERFACE': 'public',
        'NOVA_COMPAT_PASSWORD': PASSWORD, 'NOVA_TEST_KEYSTONE_URL': URL,
        'NOVA_COMPAT_SERVICE_USER': 'nova', 'NOVA_COMPAT_SERVICE_PROJECT': 'service',
        'NOVA_COMPAT_DEMO_PROJECT_ID': project_ids['demo'],
        'NOVA_COMPAT_ALT_PROJECT_ID': project_ids['alt'],
    }
    with open(os.path.join(COMPAT_DIR, 'keystone.env'), 'w') as f:
        f.write('# Admin credentials of the test Keystone (tools/keystone.sh).\n'
                '# Test users demo (member+reader on demo), reader (reader on demo), alt\n'
                '# (member on alt) and nova (admin+service on service) share the password.\n')
        f.writelines('export %s=%s\n' % item for item in env.items())
    with open(os.path.join(COMPAT_DIR, 'keystone_authtoken.conf'), 'w') as f:
        f.write('[keystone_authtoken]\n'
                'www_authenticate_uri = %(url)s\n'
                'auth_url = %(url)s\n'
                'auth_type = password\n'
                'username = nova\n'
                'password = %(pw)s\n'
                'project_name = service\n'
                'user_domain_name = Default\n'
                'project_domain_name = Default\n'
                'region_name = %(region)s\n'
                'service_token_roles_required = true\n'
                % {'url': URL, 'pw': PASSWORD, 'region': REGION})


def main():
    ks = Keystone()
    project_ids = ensure_users(ks)
    ensure_catalog(ks)
    write_files(project_ids)
    print('keystone: ready at %s; admin credentials in %s'
          % (URL, os.path.join(COMPAT_DIR, 'keystone.env')))


if __name__ == '__main__':
    sys.exit(main())

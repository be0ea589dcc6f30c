"""key_pairs, server_groups and server_group_members quotas, enforced through the API."""

import pytest

from nova.tests.functional import fixtures

ADMIN = 'admin:admin'


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    extra = {('quota', 'key_pairs'): 2, ('quota', 'server_groups'): 1,
             ('quota', 'server_group_members'): 1}
    running = fixtures.RunningAio(tmp_path_factory.mktemp('aio') / 'state', extra=extra)
    yield running
    running.stop()


def test_key_pairs_quota_per_user(aio):
    for name in ('k1', 'k2'):
        status, _h, body = aio.request('POST', '/os-keypairs', {'keypair': {'name': name}},
                                       token='kp-user:kp-proj')
        assert status == 200, body
    status, _h, body = aio.request('POST', '/os-keypairs', {'keypair': {'name': 'k3'}},
                                   token='kp-user:kp-proj')
    assert status == 403, body
    assert body['forbidden']['message'] == 'Quota exceeded, too many key pairs.'
    status, _h, body = aio.request('GET', '/os-keypairs', token='kp-user:kp-proj')
    assert sorted(k['keypair']['name'] for k in body['keypairs']) == ['k1', 'k2']
    # Another user of the same project has a quota of its own.
    status, _h, body = aio.request('POST', '/os-keypairs', {'keypair': {'name': 'k1'}},
                                   token='kp-other:kp-proj')
    assert status == 200, body
    # Raising the project's limit lets the first user add one more.
    status, _h, body = aio.request('PUT', '/os-quota-sets/kp-proj',
                                   {'quota_set': {'key_pairs': 3}}, token=ADMIN)
    assert status == 200, body
    status, _h, body = aio.request('POST', '/os-keypairs', {'keypair': {'name': 'k3'}},
                                   token='kp-user:kp-proj')
    assert status == 200, body


def test_server_groups_quota(aio):
    group = {'server_group': {'name': 'g1', 'policies': ['affinity']}}
    status, _h, body = aio.request('POST', '/os-server-groups', group, token='sg:sg-proj')
    assert status == 200, body
    group['server_group']['name'] = 'g2'
    status, _h, body = aio.request('POST', '/os-server-groups', group, token='sg:sg-proj')
    assert status == 403, body
    assert body['forbidden']['message'] == 'Quota exceeded, too many server groups.'
    status, _h, body = aio.request('GET', '/os-server-groups', token='sg:sg-proj')
    assert [g['name'] for g in body['server_groups']] == ['g1']


def test_server_group_members_quota(aio, tmp_path):
    image = aio.upload_image(fixtures.tiny_disk(tmp_path / 'disk.raw'), token='sm:sm-proj')
    group = {'server_group': {'name': 'members', 'policies': ['affinity']}}
    status, _h, body = aio.request('POST', '/os-server-groups', group, token='sm:sm-proj')
    assert status == 200, body
    hints = {'group': body['server_group']['id']}

    def create(name):
        server = {'server': {'name': name, 'imageRef': image, 'flavorRef': '1'},
                  'os:scheduler_hints': hints}
        return aio.request('POST', '/servers', server, token='sm:sm-proj')
    status, _h, body = create('m1')
    assert status == 202, body
    status, _h, body = create('m2')
    assert status == 403, body
    assert body['forbidden']['message'] == 'Quota exceeded, too many servers in group'
    status, _h, body = aio.request('GET', '/servers', token='sm:sm-proj')
    assert [s['name'] for s in body['servers']] == ['m1']

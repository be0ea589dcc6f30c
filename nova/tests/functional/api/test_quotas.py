"""Quota sets, quota classes and limits through the real all-in-one, and their enforcement."""

import concurrent.futures
import time

import pytest

from nova.api import microversion as mv
from nova.tests.functional import fixtures
from nova.tests.functional.api import tempest_schemas as ts
from nova.tests.functional.api.conftest import server_body

ADMIN = 'admin:admin'
SHAPE_VERSIONS = ['2.1', '2.35', '2.36', '2.39', '2.49', '2.50', '2.56', '2.57', '2.75',
                  mv.MAX_VERSION]
CAP = 4


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    """The all-in-one with upstream's default quotas (other suites lift them)."""
    extra = {('quota', 'instances'): 10, ('quota', 'cores'): 20, ('quota', 'ram'): 51200,
             ('quota', 'max_instances_per_request'): CAP}
    running = fixtures.RunningAio(tmp_path_factory.mktemp('aio') / 'state', extra=extra)
    yield running
    running.stop()


@pytest.fixture(scope='module')
def image(aio, tmp_path_factory):
    """A public image: these tests boot in many projects."""
    disk = fixtures.tiny_disk(tmp_path_factory.mktemp('img') / 'disk.raw')
    return aio.upload_image(disk, token=ADMIN, visibility='public')


def _set(aio, project, version='2.57', user=None, **limits):
    path = '/os-quota-sets/' + project + ('?user_id=' + user if user else '')
    status, _h, body = aio.request('PUT', path, {'quota_set': limits}, version=version,
                                   token=ADMIN)
    assert status == 200, body
    return body['quota_set']


def _servers(aio, project, user=None):
    token = '%s:%s' % (user or project, project)
    status, _h, body = aio.request('GET', '/servers', token=token)
    assert status == 200, body
    return body['servers']


def _create(aio, image, project, user=None, **extra):
    token = '%s:%s' % (user or project, project)
    return aio.request('POST', '/servers', server_body(image, **extra), version='2.37',
                       token=token)


def _wait_active(aio, server_id, token, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = aio.request('GET', '/servers/' + server_id, token=token)[2]['server']['status']
        if status == 'ACTIVE':
            return
        time.sleep(0.1)
    raise AssertionError('server %s stayed %s' % (server_id, status))


@pytest.mark.parametrize('version', SHAPE_VERSIONS)
def test_response_shapes(aio, version):
    def check(resource, name, status, body):
        ts.validate(resource, name, version, status, body)
        return body

    body = check('quotas', 'get_quota_set',
                 *aio.request('GET', '/os-quota-sets/demo', version=version)[::2])
    assert body['quota_set']['id'] == 'demo'
    assert body['quota_set']['server_groups'] == 10
    assert ('fixed_ips' in body['quota_set']) == (mv.parse(version) < (2, 36))
    assert ('injected_files' in body['quota_set']) == (mv.parse(version) < (2, 57))
    check('quotas', 'get_quota_set', *aio.request(
        'GET', '/os-quota-sets/demo?user_id=demo', version=version)[::2])
    check('quotas', 'get_quota_set', *aio.request(
        'GET', '/os-quota-sets/demo/defaults', version=version)[::2])
    body = check('quotas', 'get_quota_set_details', *aio.request(
        'GET', '/os-quota-sets/demo/detail', version=version)[::2])
    assert body['quota_set']['instances'] == {'limit': 10, 'in_use': 0, 'reserved': 0}
    body = check('quotas', 'update_quota_set', *aio.request(
        'PUT', '/os-quota-sets/shape', {'quota_set': {'instances': 7}}, version=version,
        token=ADMIN)[::2])
    assert body['quota_set']['instances'] == 7 and 'id' not in body['quota_set']
    check('quotas', 'delete_quota', *aio.request(
        'DELETE', '/os-quota-sets/shape', version=version, token=ADMIN)[::2])
    body = check('quota_classes', 'get_quota_class_set', *aio.request(
        'GET', '/os-quota-class-sets/default', version=version, token=ADMIN)[::2])
    assert ('server_groups' in body['quota_class_set']) == (mv.parse(version) >= (2, 50))
    assert ('fixed_ips' in body['quota_class_set']) == (mv.parse(version) < (2, 50))
    check('quota_classes', 'update_quota_class_set', *aio.request(
        'PUT', '/os-quota-class-sets/default', {'quota_class_set': {'instances': 10}},
        version=version, token=ADMIN)[::2])
    body = check('limits', 'get_limit', *aio.request('GET', '/limits', version=version)[::2])
    absolute = body['limits']['absolute']
    assert body['limits']['rate'] == []
    assert absolute['maxTotalInstances'] == 10 and absolute['totalServerGroupsUsed'] == 0
    assert ('maxImageMeta' in absolute) == (mv.parse(version) < (2, 39))
    assert ('maxPersonality' in absolute) == (mv.parse(version) < (2, 57))


def test_update_show_delete_per_project_and_user(aio):
    assert _set(aio, 'p1', instances=5, cores=8)['instances'] == 5
    assert _set(aio, 'p1', user='u1', instances=2)['instances'] == 2
    show = aio.request('GET', '/os-quota-sets/p1?user_id=u1', token=ADMIN)[2]['quota_set']
    assert (show['instances'], show['cores']) == (2, 8)  # the rest follows the project
    assert aio.request('GET', '/os-quota-sets/p1', token='x:p1')[2]['quota_set'][
        'instances'] == 5
    # Users' limits share the project's: u1 holds 2 of 5, so u2 may get 3.
    status, _h, body = aio.request('PUT', '/os-quota-sets/p1?user_id=u2',
                                   {'quota_set': {'instances': 4}}, token=ADMIN)
    assert status == 400
    assert body['badRequest']['message'] == ('Quota limit 4 for instances must be less '
                                             'than or equal to 3.')
    assert _set(aio, 'p1', user='u2', instances=3)['instances'] == 3
    # ...and the project's limit cannot drop below what its users were given.
    status, _h, body = aio.request('PUT', '/os-quota-sets/p1',
                                   {'quota_set': {'instances': 4}}, token=ADMIN)
    assert (status, body['badRequest']['message']) == (
        400, 'Quota limit 4 for instances must be greater than or equal to already used '
             'and reserved 5.')
    assert aio.request('DELETE', '/os-quota-sets/p1?user_id=u1', token=ADMIN)[0] == 202
    assert aio.request('GET', '/os-quota-sets/p1?user_id=u1', token=ADMIN)[2][
        'quota_set']['instances'] == 5
    assert aio.request('DELETE', '/os-quota-sets/p1', token=ADMIN)[0] == 202
    assert aio.request('GET', '/os-quota-sets/p1', token=ADMIN)[2]['quota_set'] == \
        aio.request('GET', '/os-quota-sets/p1/defaults', token=ADMIN)[2]['quota_set']


def test_quota_class_default_changes_every_project_default(aio):
    try:
        _put = aio.request('PUT', '/os-quota-class-sets/default',
                           {'quota_class_set': {'key_pairs': 33}}, version='2.57', token=ADMIN)
        assert _put[0] == 200 and _put[2]['quota_class_set']['key_pairs'] == 33
        for path in ('/os-quota-sets/fresh', '/os-quota-sets/fresh/defaults'):
            assert aio.request('GET', path, token=ADMIN)[2]['quota_set']['key_pairs'] == 33
    finally:
        aio.request('PUT', '/os-quota-class-sets/default',
                    {'quota_class_set': {'key_pairs': 100}}, token=ADMIN)


def test_policies(aio):
    before = aio.request('GET', '/os-quota-sets/demo')[2]
    for method, path, body in (
            ('PUT', '/os-quota-sets/demo', {'quota_set': {'instances': 50}}),
            ('DELETE', '/os-quota-sets/demo', None),
            ('GET', '/os-quota-sets/other', None),
            ('GET', '/os-quota-sets/other/detail', None),
            ('GET', '/os-quota-class-sets/default', None),
            ('PUT', '/os-quota-class-sets/default', {'quota_class_set': {'instances': 50}}),
            ('GET', '/limits?tenant_id=other', None)):
        status, _h, resp = aio.request(method, path, body)
        assert status == 403, (method, path, resp)
    assert aio.request('GET', '/os-quota-sets/demo')[2] == before
    # Defaults are anyone's to read.
    assert aio.request('GET', '/os-quota-sets/other/defaults')[0] == 200


@pytest.mark.parametrize('body, field', [
    ({'quota_set': {'instances': 'many'}}, 'quota_set/instances'),
    ({'quota_set': {'instances': -2}}, 'quota_set/instances'),
    ({'quota_set': {'bogus': 1}}, 'bogus'),
    ({'quota_set': {'force': 'maybe'}}, 'quota_set/force'),
    ({}, 'quota_set'),
])
def test_bad_updates_are_400_naming_the_field(aio, body, field):
    status, _h, resp = aio.request('PUT', '/os-quota-sets/bad', body, token=ADMIN)
    assert status == 400 and field in resp['badRequest']['message'], resp
    assert aio.request('GET', '/os-quota-sets/bad/detail', token=ADMIN)[2]['quota_set'][
        'instances']['limit'] == 10


def test_removed_quotas_are_refused(aio):
    status, _h, resp = aio.request('PUT', '/os-quota-sets/bad',
                                   {'quota_set': {'networks': 1}}, version='2.1', token=ADMIN)
    assert (status, resp['badRequest']['message']) == (400, 'The networks quota has been '
                                                            'removed')
    for version, key in (('2.36', 'fixed_ips'), ('2.57', 'injected_files')):
        status, _h, resp = aio.request('PUT', '/os-quota-sets/bad', {'quota_set': {key: 1}},
                                       version=version, token=ADMIN)
        assert status == 400 and key in resp['badRequest']['message']


def test_create_beyond_quota_is_403_and_creates_nothing(aio, image, nano):
    _set(aio, 'full', instances=3)
    status, _h, body = _create(aio, image, 'full', min_count=2, max_count=2)
    assert status == 202, body
    status, _h, body = _create(aio, image, 'full', name='over', min_count=2, max_count=2)
    assert status == 403
    assert body['forbidden']['message'] == ('Quota exceeded for instances: Requested 2, '
                                            'but already used 2 of 3 instances')
    assert len(_servers(aio, 'full')) == 2
    # A range that does not fit at all names the range.
    status, _h, body = _create(aio, image, 'full', name='over', min_count=2, max_count=4)
    assert body['forbidden']['message'] == ('Quota exceeded for instances: Requested 2-4, '
                                            'but already used 2 of 3 instances')
    # max_count is lowered to what fits when min_count fits.
    status, _h, body = _create(aio, image, 'full', name='fit', min_count=1, max_count=4)
    assert status == 202, body
    assert len(_servers(aio, 'full')) == 3
    usage = aio.request('GET', '/os-quota-sets/full/detail', token=ADMIN)[2]['quota_set']
    assert usage['instances'] == {'limit': 3, 'in_use': 3, 'reserved': 0}
    assert usage['cores']['in_use'] == 3 and usage['ram']['in_use'] == 3
    limits = aio.request('GET', '/limits?tenant_id=full', token=ADMIN)[2]['limits']['absolute']
    assert (limits['totalInstancesUsed'], limits['totalCoresUsed'], limits['totalRAMUsed']) \
        == (3, 3, 3)
    assert aio.request('GET', '/limits', token='full:full')[2] == \
        aio.request('GET', '/limits?tenant_id=full', token=ADMIN)[2]
    # Lowering a limit below usage needs force.
    status, _h, body = aio.request('PUT', '/os-quota-sets/full',
                                   {'quota_set': {'instances': 1}}, token=ADMIN)
    assert (status, body['badRequest']['message']) == (
        400, 'Quota limit 1 for instances must be greater than or equal to already used '
             'and reserved 3.')
    assert _set(aio, 'full', instances=1, force=True)['instances'] == 1


def test_cores_and_ram_quotas(aio, image, nano):
    _set(aio, 'cpu', cores=2)
    status, _h, body = _create(aio, image, 'cpu', min_count=3, max_count=3)
    assert body['forbidden']['message'] == ('Quota exceeded for cores: Requested 3, but '
                                            'already used 0 of 2 cores')
    status, _h, body = _create(aio, image, 'cpu', min_count=1, max_count=3)
    assert status == 202 and len(_servers(aio, 'cpu')) == 2
    _set(aio, 'mem', ram=1, instances=1)
    status, _h, body = _create(aio, image, 'mem', min_count=2, max_count=2)
    assert body['forbidden']['message'] == ('Quota exceeded for instances, ram: Requested '
                                            '2, 2, but already used 0, 0 of 1, 1 '
                                            'instances, ram')
    assert _servers(aio, 'mem') == []


def test_per_user_instance_quota(aio, image, nano):
    _set(aio, 'shared', user='alice', instances=1)
    assert _create(aio, image, 'shared', user='alice')[0] == 202
    status, _h, body = _create(aio, image, 'shared', user='alice', name='second')
    assert (status, body['forbidden']['message']) == (
        403, 'Quota exceeded for instances: Requested 1, but already used 1 of 1 instances')
    # Another user of the project is held only by the project's limit.
    assert _create(aio, image, 'shared', user='bob', min_count=2, max_count=2)[0] == 202
    assert len(_servers(aio, 'shared', user='bob')) == 3


def test_max_count_is_capped_per_request(aio, image, nano):
    _set(aio, 'big', instances=-1, cores=-1, ram=-1)
    status, _h, body = _create(aio, image, 'big', min_count=CAP + 1, max_count=CAP + 1)
    assert status == 400 and 'min_count' in body['badRequest']['message']
    assert _servers(aio, 'big') == []
    status, _h, body = _create(aio, image, 'big', min_count=1, max_count=CAP * 100)
    assert status == 202 and len(_servers(aio, 'big')) == CAP


def test_metadata_items_quota(aio, image, nano):
    _set(aio, 'meta', metadata_items=2)
    status, _h, body = _create(aio, image, 'meta', metadata={'a': '1', 'b': '2', 'c': '3'})
    assert (status, body['forbidden']['message']) == (
        403, 'Maximum number of metadata items exceeds 2')
    assert _servers(aio, 'meta') == []
    status, _h, body = _create(aio, image, 'meta', metadata={'a': '1'})
    assert status == 202, body
    path = '/servers/%s/metadata' % body['server']['id']
    _wait_active(aio, body['server']['id'], 'meta:meta')
    status, _h, body = aio.request('POST', path, {'metadata': {'b': '2', 'c': '3'}},
                                   token='meta:meta')
    assert (status, body['forbidden']['message']) == (
        403, 'Maximum number of metadata items exceeds 2')
    assert aio.request('GET', path, token='meta:meta')[2] == {'metadata': {'a': '1'}}


def test_parallel_creates_never_exceed_quota(aio, image, nano):
    """Threads racing through the API: the SQLite writer lock serialises check+insert."""
    _set(aio, 'race', instances=3)
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda i: _create(aio, image, 'race', name='r%d' % i)[0],
                                range(8)))
    assert sorted(results) == [202] * 3 + [403] * 5
    assert len(_servers(aio, 'race')) == 3


def test_key_pairs_quota_per_user(aio):
    _set(aio, 'keys', key_pairs=1)
    token = 'kim:keys'
    status, _h, body = aio.request('POST', '/os-keypairs', {'keypair': {'name': 'k1'}},
                                   token=token)
    assert status == 200, body
    status, _h, body = aio.request('POST', '/os-keypairs', {'keypair': {'name': 'k2'}},
                                   token=token)
    assert (status, body['forbidden']['message']) == (
        403, 'Quota exceeded, too many key pairs.')
    assert [k['keypair']['name'] for k in aio.request('GET', '/os-keypairs',
                                                       token=token)[2]['keypairs']] == ['k1']
    detail = aio.request('GET', '/os-quota-sets/keys/detail?user_id=kim', token=ADMIN)[2]
    assert detail['quota_set']['key_pairs'] == {'limit': 1, 'in_use': 1, 'reserved': 0}


def test_server_groups_and_members_quotas(aio, image, nano):
    _set(aio, 'groups', server_groups=1, server_group_members=2)
    token = 'gus:groups'
    body = {'server_group': {'name': 'g1', 'policies': ['affinity']}}
    status, _h, group = aio.request('POST', '/os-server-groups', body, token=token)
    assert status == 200, group
    status, _h, resp = aio.request('POST', '/os-server-groups', body, token=token)
    assert (status, resp['forbidden']['message']) == (
        403, 'Quota exceeded, too many server groups.')
    limits = aio.request('GET', '/limits', token=token)[2]['limits']['absolute']
    assert (limits['maxServerGroups'], limits['totalServerGroupsUsed']) == (1, 1)
    hints = {'os:scheduler_hints': {'group': group['server_group']['id']}}
    create = server_body(image, name='member', min_count=3, max_count=3)
    create.update(hints)
    status, _h, resp = aio.request('POST', '/servers', create, version='2.37', token=token)
    assert (status, resp['forbidden']['message']) == (
        403, 'Quota exceeded, too many servers in group')
    assert _servers(aio, 'groups', user='gus') == []
    create['server'].update(min_count=2, max_count=2)
    assert aio.request('POST', '/servers', create, version='2.37', token=token)[0] == 202

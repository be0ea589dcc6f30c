"""os-server-groups through the real all-in-one, checked with tempest's schemas."""

import uuid

import pytest

from nova.tests.functional.api import tempest_schemas as ts
from nova.tests.functional.api.conftest import server_body

ADMIN = 'admin:admin'


def _create(aio, version, policy='affinity', name='grp', token='demo:demo', **extra):
    group = {'name': name}
    if ts.parse(version) >= (2, 64):
        group.update(policy=policy, **extra)
    else:
        group.update(policies=[policy], **extra)
    return aio.request('POST', '/os-server-groups', {'server_group': group}, version=version,
                       token=token)


@pytest.mark.parametrize('version', ['2.1', '2.13', '2.15', '2.63', '2.64', '2.75', '2.104'])
def test_crud_matches_tempest_schemas(aio, version):
    policy = 'soft-anti-affinity' if ts.parse(version) >= (2, 15) else 'anti-affinity'
    status, _h, body = _create(aio, version, policy=policy, name='g-' + version)
    ts.validate('server_groups', 'create_show_server_group', version, status, body)
    group = body['server_group']
    assert group['name'] == 'g-' + version and group['members'] == []
    if ts.parse(version) >= (2, 64):
        assert group['policy'] == policy and group['rules'] == {}
    else:
        assert group['policies'] == [policy] and group['metadata'] == {}
    if ts.parse(version) >= (2, 13):
        assert (group['project_id'], group['user_id']) == ('demo', 'demo')
    path = '/os-server-groups/' + group['id']
    status, _h, shown = aio.request('GET', path, version=version)
    ts.validate('server_groups', 'create_show_server_group', version, status, shown)
    assert shown['server_group'] == group
    status, _h, listed = aio.request('GET', '/os-server-groups', version=version)
    ts.validate('server_groups', 'list_server_groups', version, status, listed)
    assert group in listed['server_groups']
    status, _h, _b = aio.request('DELETE', path, version=version)
    ts.validate('server_groups', 'delete_server_group', version, status, _b)
    assert aio.request('GET', path, version=version)[0] == 404


def test_rules_only_for_anti_affinity(aio):
    status, _h, body = _create(aio, '2.64', policy='anti-affinity',
                               rules={'max_server_per_host': 3})
    assert status == 200, body
    assert body['server_group']['rules'] == {'max_server_per_host': 3}
    status, _h, body = _create(aio, '2.64', policy='affinity',
                               rules={'max_server_per_host': 3})
    assert status == 400 and 'Only anti-affinity policy supports rules.' in str(body)


@pytest.mark.parametrize('version,group,field', [
    ('2.1', {'name': 'x', 'policies': ['soft-affinity']}, 'policies'),
    ('2.14', {'name': 'x', 'policies': ['affinity', 'anti-affinity']}, 'policies'),
    ('2.15', {'name': 'x', 'policies': []}, 'policies'),
    ('2.15', {'name': 'x', 'policy': 'affinity'}, 'policies'),
    ('2.64', {'name': 'x', 'policies': ['affinity']}, 'policy'),
    ('2.64', {'name': 'x', 'policy': 'best-effort'}, 'policy'),
    ('2.64', {'name': '', 'policy': 'affinity'}, 'name'),
    ('2.64', {'policy': 'affinity'}, 'name'),
    ('2.64', {'name': 'x', 'policy': 'anti-affinity',
              'rules': {'max_server_per_host': 0}}, 'max_server_per_host'),
    ('2.64', {'name': 'x', 'policy': 'anti-affinity', 'rules': {'foo': 1}}, 'foo'),
])
def test_bad_create_is_400_naming_the_field(aio, version, group, field):
    status, _h, body = aio.request('POST', '/os-server-groups', {'server_group': group},
                                   version=version)
    assert status == 400, body
    assert field in body['badRequest']['message']


def test_not_found_and_other_projects(aio):
    missing = '/os-server-groups/' + str(uuid.uuid4())
    assert aio.request('GET', missing)[0] == 404
    assert aio.request('DELETE', missing)[0] == 404
    _s, _h, body = _create(aio, '2.64', name='theirs', token='alt:alt')
    theirs = body['server_group']['id']
    # Another project's group answers as a missing one (upstream's 403 tells it exists).
    assert aio.request('GET', '/os-server-groups/' + theirs)[0] == 404
    assert aio.request('DELETE', '/os-server-groups/' + theirs)[0] == 404
    ids = [g['id'] for g in aio.request('GET', '/os-server-groups')[2]['server_groups']]
    assert theirs not in ids
    # all_projects is for admins; anyone else is refused rather than silently narrowed.
    assert aio.request('GET', '/os-server-groups?all_projects=True')[0] == 403
    status, _h, body = aio.request('GET', '/os-server-groups?all_projects=True', token=ADMIN)
    assert status == 200 and theirs in [g['id'] for g in body['server_groups']]
    status, _h, body = aio.request('GET', '/os-server-groups/' + theirs, token=ADMIN,
                                   version='2.13')
    assert status == 200 and body['server_group']['project_id'] == 'alt'
    assert aio.request('DELETE', '/os-server-groups/' + theirs, token=ADMIN)[0] == 204


def test_pagination_limit_offset(aio):
    ids = [_create(aio, '2.64', name='page%d' % i, token='pager:pager')[2]['server_group']['id']
           for i in range(3)]
    get = lambda q: [g['id'] for g in aio.request(  # noqa: E731
        'GET', '/os-server-groups' + q, token='pager:pager')[2]['server_groups']]
    assert get('') == ids
    assert get('?limit=2') == ids[:2]
    assert get('?limit=2&offset=2') == ids[2:]
    assert get('?offset=1') == ids[1:]
    status, _h, body = aio.request('GET', '/os-server-groups?limit=-1', token='pager:pager')
    assert status == 400 and 'limit' in body['badRequest']['message']
    # Unknown parameters: ignored before 2.75, refused from it.
    assert aio.request('GET', '/os-server-groups?foo=1', version='2.74')[0] == 200
    assert aio.request('GET', '/os-server-groups?foo=1', version='2.75')[0] == 400


def _boot(aio, image, group_id, name, version='2.71'):
    body = server_body(image, name=name, version=version)
    body['os:scheduler_hints'] = {'group': group_id}
    status, _h, resp = aio.request('POST', '/servers', body, version=version)
    assert status == 202, resp
    return resp['server']['id']


def test_affinity_places_members_together_and_lists_them(aio, image, nano):
    group = _create(aio, '2.64', policy='affinity', name='aff')[2]['server_group']
    servers = [_boot(aio, image, group['id'], 'aff%d' % i) for i in range(2)]
    for server_id in servers:
        server = aio.wait_for_status(server_id, ['ACTIVE'], version='2.71')
        assert server['server_groups'] == [group['id']]
        ts.validate('servers', 'get_server', '2.71', 200, {'server': server})
    status, _h, body = aio.request('GET', '/os-server-groups/' + group['id'], version='2.64')
    assert sorted(body['server_group']['members']) == sorted(servers)
    # Lists never carry server_groups, as upstream.
    _s, _h, body = aio.request('GET', '/servers/detail', version='2.71')
    assert all('server_groups' not in s for s in body['servers'])
    # A deleted server leaves the group.
    assert aio.request('DELETE', '/servers/' + servers[0])[0] == 204
    aio.wait_for_status(servers[0], ['DELETED'])
    _s, _h, body = aio.request('GET', '/os-server-groups/' + group['id'])
    assert body['server_group']['members'] == [servers[1]]
    assert aio.request('DELETE', '/servers/' + servers[1])[0] == 204
    aio.wait_for_status(servers[1], ['DELETED'])


def test_anti_affinity_beyond_one_host_is_no_valid_host(aio, image, nano):
    group = _create(aio, '2.64', policy='anti-affinity', name='anti')[2]['server_group']
    first = _boot(aio, image, group['id'], 'anti1')
    aio.wait_for_status(first, ['ACTIVE'])
    second = _boot(aio, image, group['id'], 'anti2')
    server = aio.wait_for_status(second, ['ERROR'])
    assert server['fault']['message'].startswith('No valid host was found.'), server
    # Upstream keeps the failed server as a member until it is deleted.
    _s, _h, body = aio.request('GET', '/os-server-groups/' + group['id'])
    assert sorted(body['server_group']['members']) == sorted([first, second])
    # max_server_per_host=2 lets a second member share the host.
    roomy = _create(aio, '2.64', policy='anti-affinity', name='roomy',
                    rules={'max_server_per_host': 2})[2]['server_group']
    pair = [_boot(aio, image, roomy['id'], 'roomy%d' % i) for i in range(2)]
    for server_id in pair:
        aio.wait_for_status(server_id, ['ACTIVE'])
    for server_id in [first, second] + pair:
        aio.request('DELETE', '/servers/' + server_id)
        aio.wait_for_status(server_id, ['DELETED'])


def test_soft_policies_never_fail_scheduling(aio, image, nano):
    group = _create(aio, '2.15', policy='soft-anti-affinity', name='soft')[2]['server_group']
    servers = [_boot(aio, image, group['id'], 'soft%d' % i, version='2.37') for i in range(2)]
    for server_id in servers:
        aio.wait_for_status(server_id, ['ACTIVE'])
    for server_id in servers:
        aio.request('DELETE', '/servers/' + server_id)
        aio.wait_for_status(server_id, ['DELETED'])


def test_unknown_group_hint_is_400_and_writes_nothing(aio, image, nano):
    before = len(aio.request('GET', '/servers')[2]['servers'])
    missing = str(uuid.uuid4())
    body = server_body(image, name='nogroup')
    body['os:scheduler_hints'] = {'group': missing}
    status, _h, resp = aio.request('POST', '/servers', body, version='2.37')
    assert status == 400 and missing in resp['badRequest']['message'], resp
    body['os:scheduler_hints'] = {'group': 'not-a-uuid'}
    status, _h, resp = aio.request('POST', '/servers', body, version='2.37')
    assert status == 400 and 'group' in resp['badRequest']['message'], resp
    assert len(aio.request('GET', '/servers')[2]['servers']) == before


def test_deleting_a_group_with_members_keeps_the_servers(aio, image, nano):
    group = _create(aio, '2.64', name='gone')[2]['server_group']
    server_id = _boot(aio, image, group['id'], 'orphan')
    aio.wait_for_status(server_id, ['ACTIVE'])
    assert aio.request('DELETE', '/os-server-groups/' + group['id'])[0] == 204
    server = aio.wait_for_status(server_id, ['ACTIVE'], version='2.71')
    assert server['server_groups'] == []
    aio.request('DELETE', '/servers/' + server_id)
    aio.wait_for_status(server_id, ['DELETED'])


def test_quotas(aio, image, nano):
    token = 'quota:quota'
    for key, value in (('server_groups', 1), ('server_group_members', 1)):
        status, _h, body = aio.request('PUT', '/os-quota-sets/quota',
                                       {'quota_set': {key: value}}, token=ADMIN)
        assert status == 200, body
    status, _h, body = _create(aio, '2.64', name='q1', token=token)
    assert status == 200, body
    group = body['server_group']
    status, _h, body = _create(aio, '2.64', name='q2', token=token)
    assert status == 403 and body['forbidden']['message'] == \
        'Quota exceeded, too many server groups.'
    create = server_body(image, name='qs', max_count=2, min_count=2)
    create['os:scheduler_hints'] = {'group': group['id']}
    status, _h, body = aio.request('POST', '/servers', create, version='2.37', token=token)
    assert status == 403 and 'too many servers in group' in body['forbidden']['message']
    assert aio.request('GET', '/servers', token=token)[2]['servers'] == []
    assert aio.request('DELETE', '/os-server-groups/' + group['id'], token=token)[0] == 204
    assert _create(aio, '2.64', name='q3', token=token)[0] == 200

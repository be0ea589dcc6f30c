"""os-security-groups and os-security-group-rules (up to 2.35) on the all-in-one's network."""

import uuid

import pytest

V = '2.35'


def _call(aio, method, path, body=None):
    return aio.request(method, path, body, version=V)


@pytest.fixture
def group(aio):
    status, _h, body = _call(aio, 'POST', '/os-security-groups', {'security_group': {
        'name': 'proxy-%s' % uuid.uuid4().hex[:8], 'description': 'd'}})
    assert status == 200, body
    yield body['security_group']
    _call(aio, 'DELETE', '/os-security-groups/' + body['security_group']['id'])


def _rule(parent, **extra):
    return {'security_group_rule': dict(parent_group_id=parent, ip_protocol='tcp',
                                        from_port=22, to_port=22, **extra)}


def test_a_rule_keeps_its_cidr_as_given(aio, group):
    status, _h, body = _call(aio, 'POST', '/os-security-group-rules',
                             _rule(group['id'], cidr='10.2.3.124/24'))
    assert status == 200, body
    assert body['security_group_rule']['ip_range'] == {'cidr': '10.2.3.124/24'}
    status, _h, body = _call(aio, 'POST', '/os-security-group-rules', _rule(group['id']))
    assert status == 200, body
    assert body['security_group_rule']['ip_range'] == {'cidr': '0.0.0.0/0'}


@pytest.mark.parametrize('cidr', ['10.2.3.124', '10.2.3.0/33', 'not-a-cidr'])
def test_an_invalid_cidr_is_400(aio, group, cidr):
    status, _h, body = _call(aio, 'POST', '/os-security-group-rules',
                             _rule(group['id'], cidr=cidr))
    assert status == 400 and cidr in body['badRequest']['message'], body


def test_a_parent_that_is_no_uuid_is_400_and_an_unknown_one_404(aio, group):
    status, _h, body = _call(aio, 'POST', '/os-security-group-rules', _rule('non_int_id'))
    assert status == 400 and 'uuid' in body['badRequest']['message'], body
    status, _h, body = _call(aio, 'POST', '/os-security-group-rules', _rule(str(uuid.uuid4())))
    assert status == 404, body
    status, _h, body = _call(aio, 'POST', '/os-security-group-rules',
                             _rule(group['id'], group_id='nope'))
    assert status == 400 and 'uuid' in body['badRequest']['message'], body


@pytest.mark.parametrize('method,path,body', [
    ('GET', '/os-security-groups/sg_id_invalid', None),
    ('PUT', '/os-security-groups/sg_id_invalid', {'security_group': {
        'name': 'n', 'description': 'd'}}),
    ('DELETE', '/os-security-groups/sg_id_invalid', None),
    ('DELETE', '/os-security-group-rules/rule_id_invalid', None),
])
def test_ids_that_are_no_uuid_are_400(aio, method, path, body):
    status, _h, resp = _call(aio, method, path, body)
    assert status == 400 and 'uuid' in resp['badRequest']['message'], resp


def test_unknown_uuids_are_404(aio):
    missing = str(uuid.uuid4())
    for method, path in (('GET', '/os-security-groups/' + missing),
                         ('DELETE', '/os-security-groups/' + missing),
                         ('DELETE', '/os-security-group-rules/' + missing)):
        status, _h, resp = _call(aio, method, path)
        assert status == 404, (method, path, resp)

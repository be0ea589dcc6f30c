"""Server list regex filters, access IPs, rebuild bodies per microversion, unrescue bodies."""

import time

import pytest

from nova.network import model
from nova.tests.functional.api import tempest_schemas as ts
from nova.tests.functional.api.conftest import server_body

ADMIN = 'admin:admin'


@pytest.fixture(scope='module')
def servers(aio, image, nano):
    ids = {}
    for name in ('alpha-1', 'alpha-22', 'beta-1'):
        status, _h, body = aio.request('POST', '/servers', server_body(image, name=name),
                                       version='2.37')
        assert status == 202, body
        ids[name] = body['server']['id']
    for sid in ids.values():
        aio.wait_for_status(sid, ['ACTIVE'])
    return ids


def _names(aio, query, version='2.1', token='demo:demo'):
    status, _h, body = aio.request('GET', '/servers' + query, version=version, token=token)
    assert status == 200, body
    return sorted(s['name'] for s in body['servers'])


def test_name_filter_is_a_regular_expression(aio, servers):
    assert _names(aio, '?name=alpha') == ['alpha-1', 'alpha-22']
    assert _names(aio, '?name=^alpha-2') == ['alpha-22']
    assert _names(aio, '?name=-1$') == ['alpha-1', 'beta-1']
    assert _names(aio, '?name=a.*2') == ['alpha-22']
    assert _names(aio, '?name=^alp.a-1$') == ['alpha-1']
    assert _names(aio, '?name=gamma') == []
    status, _h, body = aio.request('GET', '/servers?name=(unclosed')
    assert status == 400 and 'name' in body['badRequest']['message']


def test_other_regex_filters(aio, servers):
    assert 'alpha-1' in _names(aio, '?hostname=^alpha', version='2.90')
    assert _names(aio, '?reservation_id=^r-$') == []


def _cache(*addresses):
    """A network info cache with one VIF holding ``addresses`` as fixed IPs."""
    return [model.vif('port-%s' % addresses[0], address='fa:16:3e:00:00:01',
                      network=model.network(id='net', label='private', subnets=[
                          model.subnet(None, ips=[model.fixed_ip(a) for a in addresses])]))]


@pytest.fixture
def addressed(aio, servers):
    caches = {'alpha-1': _cache('10.9.0.3', '2001:db8::3'), 'alpha-22': _cache('10.9.0.13'),
              'beta-1': _cache('10.9.0.14')}
    for name, cache in caches.items():
        aio.db.instance_update(servers[name], {'network_info': cache})
    yield servers
    for name in caches:
        aio.db.instance_update(servers[name], {'network_info': []})


def test_ip_filters_match_the_fixed_ips(aio, addressed):
    """ip and ip6 are regular expressions searched in the fixed IPs of their version
    (tempest's test_list_servers_filtered_by_ip: they were accepted and ignored)."""
    assert _names(aio, '?ip=10.9.0.14') == ['beta-1']
    # A plain address also finds the longer ones holding it, as Neutron's substring match.
    assert _names(aio, '?ip=10.9.0.1') == ['alpha-22', 'beta-1']
    assert _names(aio, '?ip=^10.9.0.3$') == ['alpha-1']
    assert _names(aio, '?ip=10.9.0.') == ['alpha-1', 'alpha-22', 'beta-1']
    assert _names(aio, '?ip=2001') == []
    assert _names(aio, '?ip=10.9.0.&name=alpha&all_tenants=1',
                  token=ADMIN) == ['alpha-1', 'alpha-22']
    # The page is cut after the filter, and pages on from the marker.
    status, _h, body = aio.request('GET', '/servers?ip=10.9.0.&limit=2')
    assert status == 200 and len(body['servers']) == 2, body
    marker = body['servers'][-1]['id']
    status, _h, body = aio.request('GET', '/servers?ip=10.9.0.&limit=2&marker=' + marker)
    assert status == 200 and len(body['servers']) == 1, body
    assert _names(aio, '?ip6=2001:db8::3', version='2.5') == ['alpha-1']
    assert _names(aio, '?ip6=^2001:db8::1', version='2.5') == []
    # Below 2.5 a user's ip6 is dropped unread; an administrator's counts.
    assert _names(aio, '?ip6=2001:db8::3', version='2.4') == ['alpha-1', 'alpha-22', 'beta-1']
    assert _names(aio, '?ip6=2001:db8::3&all_tenants=1', version='2.4',
                  token=ADMIN) == ['alpha-1']
    status, _h, body = aio.request('GET', '/servers/detail?ip=(unclosed')
    assert status == 400 and 'ip' in body['badRequest']['message'], body


def test_access_ips_are_normalised(aio, servers):
    sid = servers['beta-1']
    body = {'server': {'accessIPv6': '0000:0000:0000:0000:0000:ffff:192.168.100.228',
                       'accessIPv4': '192.168.0.1'}}
    status, _h, resp = aio.request('PUT', '/servers/' + sid, body)
    assert status == 200, resp
    assert resp['server']['accessIPv6'] == '::ffff:192.168.100.228'
    body = {'server': {'accessIPv6': '2001:DB8:0:0:0:0:0:1'}}
    resp = aio.request('PUT', '/servers/' + sid, body)[2]
    assert resp['server']['accessIPv6'] == '2001:db8::1'
    status, _h, resp = aio.request('PUT', '/servers/' + sid, {'server': {'accessIPv6': 'x'}})
    assert status == 400 and 'accessIPv6' in resp['badRequest']['message']


def _idle(aio, sid):
    deadline = time.monotonic() + 60
    while True:
        server = aio.request('GET', '/servers/' + sid, token=ADMIN)[2]['server']
        if server['status'] == 'ACTIVE' and server['OS-EXT-STS:task_state'] is None:
            return server
        assert time.monotonic() < deadline, server
        time.sleep(0.05)


@pytest.mark.parametrize('version', ['2.1', '2.9', '2.19', '2.26', '2.47', '2.54', '2.57',
                                     '2.63', '2.71', '2.73', '2.75', '2.90', '2.96',
                                     '2.98', '2.100', '2.104'])
def test_rebuild_body_matches_tempest(aio, image, servers, version):
    sid = servers['alpha-22']
    _idle(aio, sid)
    body = {'rebuild': {'imageRef': image, 'adminPass': 'seekr3t'}}
    status, _h, resp = aio.request('POST', '/servers/%s/action' % sid, body, version=version)
    ts.validate('servers', 'rebuild_server_with_admin_pass', version, status, resp)
    server = resp['server']
    if ts.parse(version) >= (2, 57):
        assert 'user_data' in server
    if (2, 54) <= ts.parse(version) < (2, 75):
        assert 'key_name' in server
    _idle(aio, sid)


def test_volumes_attached_never_lists_a_null_id(aio, servers):
    status, _h, body = aio.request('GET', '/servers/detail', version='2.3', token=ADMIN)
    for server in body['servers']:
        for volume in server['os-extended-volumes:volumes_attached']:
            assert volume['id'] is not None


@pytest.mark.parametrize('body', [{'unrescue': None}, {'unrescue': {}}])
def test_unrescue_accepts_null_and_empty_object(aio, servers, body):
    sid = servers['alpha-1']
    _idle(aio, sid)
    status, _h, resp = aio.request('POST', '/servers/%s/action' % sid, {'rescue': None})
    assert status == 200, resp
    deadline = time.monotonic() + 60
    while aio.request('GET', '/servers/' + sid)[2]['server']['status'] != 'RESCUE':
        assert time.monotonic() < deadline
        time.sleep(0.05)
    status, _h, resp = aio.request('POST', '/servers/%s/action' % sid, body)
    assert status == 202, resp
    _idle(aio, sid)


def _boot_with_hints(aio, image, name, hints, version='2.100'):
    body = server_body(image, name=name, version=version)
    body['os:scheduler_hints'] = hints
    status, _h, resp = aio.request('POST', '/servers', body, version=version)
    assert status == 202, resp
    return resp['server']['id']


def test_same_and_different_host_hints(aio, image, servers):
    """One compute host: same_host places, different_host cannot (as upstream)."""
    anchor = servers['beta-1']
    same = _boot_with_hints(aio, image, 'same', {'same_host': anchor})
    server = aio.wait_for_status(same, ['ACTIVE'], version='2.100')
    assert server['scheduler_hints'] == {'same_host': [anchor]}
    ts.validate('servers', 'get_server', '2.100', 200, {'server': server})
    different = _boot_with_hints(aio, image, 'different', {'different_host': [anchor]})
    server = aio.wait_for_status(different, ['ERROR'], version='2.100')
    assert server['fault']['message'].startswith('No valid host was found.')
    assert server['scheduler_hints'] == {'different_host': [anchor]}
    status, _h, body = aio.request('GET', '/servers/' + anchor, version='2.100')
    assert body['server']['scheduler_hints'] == {}
    for sid in (same, different):
        aio.request('DELETE', '/servers/' + sid)
        aio.wait_for_status(sid, ['DELETED'])


def test_inject_network_info(aio, servers):
    sid = servers['beta-1']
    path = '/servers/%s/action' % sid
    assert aio.request('POST', path, {'injectNetworkInfo': None}, token=ADMIN)[0] == 202
    assert aio.request('POST', path, {'injectNetworkInfo': None})[0] == 403


@pytest.mark.parametrize('version,hostname', [
    ('2.94', 'x' * 52 + '-guest-test.domaintest.com'),
    ('2.90', 'web_1.Example'),
])
def test_a_requested_hostname_is_kept_as_given(aio, image, nano, version, hostname):
    body = server_body(image, name='named-host', version=version)
    body['server']['hostname'] = hostname
    status, _h, resp = aio.request('POST', '/servers', body, version=version)
    assert status == 202, resp
    sid = resp['server']['id']
    try:
        status, _h, shown = aio.request('GET', '/servers/' + sid, version=version,
                                        token=ADMIN)
        assert shown['server']['OS-EXT-SRV-ATTR:hostname'] == hostname
        assert aio.db.instance_get(sid)['hostname'] == hostname
    finally:
        aio.request('DELETE', '/servers/' + sid)
        aio.wait_for_status(sid, ['DELETED'])

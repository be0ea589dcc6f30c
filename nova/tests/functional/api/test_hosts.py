"""os-hosts (until 2.42) through the real all-in-one, with tempest's schemas."""

import pytest

from nova.tests.functional.api import tempest_schemas as ts

ADMIN = 'admin:admin'


def get(aio, path, version='2.1', token=ADMIN):
    return aio.request('GET', path, version=version, token=token)


def test_list_and_show(aio):
    status, _h, body = get(aio, '/os-hosts')
    ts.validate('hosts', 'list_hosts', '2.1', status, body)
    services = {h['service']: h for h in body['hosts']}
    assert services['compute'] == {'host_name': 'testhost', 'service': 'compute',
                                   'zone': 'nova'}
    assert services['conductor']['zone'] == 'internal'
    status, _h, body = get(aio, '/os-hosts?zone=nova')
    assert [h['service'] for h in body['hosts']] == ['compute']
    assert get(aio, '/os-hosts?zone=nowhere')[2]['hosts'] == []
    assert len(get(aio, '/os-hosts?zone=')[2]['hosts']) == len(services)
    status, _h, body = get(aio, '/os-hosts/testhost')
    ts.validate('hosts', 'get_host_detail', '2.1', status, body)
    projects = [r['resource']['project'] for r in body['host']]
    assert projects[:3] == ['(total)', '(used_now)', '(used_max)']


@pytest.mark.parametrize('method,path,body,token,version,code', [
    ('GET', '/os-hosts', None, ADMIN, '2.43', 404),
    ('GET', '/os-hosts', None, 'demo:demo', '2.1', 403),
    ('GET', '/os-hosts/nohost', None, ADMIN, '2.1', 404),
    ('PUT', '/os-hosts/testhost', {'status': 'bogus'}, ADMIN, '2.1', 400),
    ('PUT', '/os-hosts/testhost', {}, ADMIN, '2.1', 400),
    ('PUT', '/os-hosts/nohost', {'status': 'enable'}, ADMIN, '2.1', 404),
    ('PUT', '/os-hosts/testhost', {'status': 'enable'}, 'demo:demo', '2.1', 403),
    ('PUT', '/os-hosts/testhost', {'status': 'disable'}, ADMIN, '2.1', 501),
    ('PUT', '/os-hosts/testhost', {'maintenance_mode': 'enable'}, ADMIN, '2.1', 501),
    ('GET', '/os-hosts/testhost/reboot', None, ADMIN, '2.1', 501),
    ('GET', '/os-hosts/testhost/shutdown', None, ADMIN, '2.1', 501),
    ('GET', '/os-hosts/testhost/startup', None, ADMIN, '2.1', 501),
    ('GET', '/os-hosts/nohost/reboot', None, ADMIN, '2.1', 404),
    ('GET', '/os-hosts/testhost/reboot', None, 'demo:demo', '2.1', 403),
])
def test_refusals(aio, method, path, body, token, version, code):
    status, _h, resp = aio.request(method, path, body, version=version, token=token)
    assert status == code, resp
    # Nothing changed: the compute service is still enabled.
    services = get(aio, '/os-services?binary=nova-compute')[2]['services']
    assert services[0]['status'] == 'enabled'

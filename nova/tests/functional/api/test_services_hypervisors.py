"""os-services and os-hypervisors through the real all-in-one, with tempest's schemas."""

import pytest

from nova.tests.functional.api import tempest_schemas as ts
from nova.tests.functional.api.conftest import server_body

ADMIN = 'admin:admin'


def get(aio, path, version, token=ADMIN):
    return aio.request('GET', path, version=version, token=token)


@pytest.mark.parametrize('version', ['2.1', '2.11', '2.53', '2.75', '2.104'])
def test_list_services(aio, version):
    status, _h, body = get(aio, '/os-services', version)
    ts.validate('services', 'list_services', version, status, body)
    by_binary = {s['binary']: s for s in body['services']}
    assert by_binary['nova-compute']['zone'] == 'nova'
    assert by_binary['nova-conductor']['zone'] == 'internal'
    assert by_binary['nova-compute']['state'] == 'up'
    status, _h, body = get(aio, '/os-services?binary=nova-compute&host=testhost', version)
    assert [s['binary'] for s in body['services']] == ['nova-compute']
    assert get(aio, '/os-services?binary=xxx', version)[2]['services'] == []
    assert get(aio, '/os-services?host=xxx', version)[2]['services'] == []
    assert get(aio, '/os-services', version, token='demo:demo')[0] == 403


def test_unknown_query_params(aio):
    assert len(get(aio, '/os-services?xxx=1', '2.74')[2]['services']) >= 2
    assert get(aio, '/os-services?xxx=1', '2.75')[0] == 400


def test_legacy_enable_disable_force_down(aio):
    def put(action, body, version='2.11'):
        return aio.request('PUT', '/os-services/' + action, body, version=version, token=ADMIN)

    target = {'host': 'testhost', 'binary': 'nova-compute'}
    status, _h, body = put('disable', target)
    ts.validate('services', 'enable_disable_service', '2.11', status, body)
    assert body['service']['status'] == 'disabled'
    status, _h, body = put('disable-log-reason', dict(target, disabled_reason='maint'))
    ts.validate('services', 'disable_log_reason', '2.11', status, body)
    svc = [s for s in get(aio, '/os-services', '2.11')[2]['services']
           if s['binary'] == 'nova-compute'][0]
    assert (svc['status'], svc['disabled_reason']) == ('disabled', 'maint')
    assert put('disable-log-reason', target)[0] == 400
    status, _h, body = put('enable', target)
    ts.validate('services', 'enable_disable_service', '2.11', status, body)
    status, _h, body = put('force-down', dict(target, forced_down=True))
    ts.validate('services', 'update_forced_down', '2.11', status, body)
    assert get(aio, '/os-services', '2.11')[2]['services'][0]['state'] in ('up', 'down')
    assert put('force-down', dict(target, forced_down=False))[0] == 200
    assert put('force-down', dict(target, forced_down=True), version='2.10')[0] == 404
    assert put('enable', {'host': 'nohost', 'binary': 'nova-compute'})[0] == 404
    assert put('bogus', target)[0] == 404
    assert put('enable', {'host': 'testhost'})[0] == 400
    svc = [s for s in get(aio, '/os-services', '2.11')[2]['services']
           if s['binary'] == 'nova-compute'][0]
    assert (svc['status'], svc['forced_down'], svc['disabled_reason']) == \
        ('enabled', False, None)


def test_disabled_compute_is_not_scheduled_to(aio, image, nano):
    services = get(aio, '/os-services?binary=nova-compute', '2.53')[2]['services']
    sid = services[0]['id']

    def put(body):
        return aio.request('PUT', '/os-services/' + sid, body, version='2.53', token=ADMIN)

    status, _h, body = put({'status': 'disabled', 'disabled_reason': 'maintenance'})
    ts.validate('services', 'update_service', '2.53', status, body)
    assert body['service']['disabled_reason'] == 'maintenance'
    status, _h, body = aio.request('POST', '/servers', server_body(image, name='nohost'),
                                   version='2.37')
    assert status == 202
    server = aio.wait_for_status(body['server']['id'], ['ERROR'])
    assert 'No valid host' in server['fault']['message']
    status, _h, body = put({'status': 'enabled'})
    ts.validate('services', 'update_service', '2.53', status, body)
    assert body['service']['disabled_reason'] is None
    assert put({'status': 'enabled', 'disabled_reason': 'x'})[0] == 400
    assert put({})[0] == 400
    assert put({'status': 'bogus'})[0] == 400
    assert aio.request('PUT', '/os-services/1', {'status': 'enabled'}, version='2.53',
                       token=ADMIN)[0] == 400
    fake = '8f1b2a54-3c58-4a4a-9b4f-2e2d3c4b5a69'
    for body in ({'status': 'enabled'}, {'status': 'disabled', 'disabled_reason': 'x'}):
        assert aio.request('PUT', '/os-services/' + fake, body, version='2.53',
                           token=ADMIN)[0] == 404
    conductor = [s for s in get(aio, '/os-services', '2.53')[2]['services']
                 if s['binary'] == 'nova-conductor'][0]
    assert aio.request('PUT', '/os-services/' + conductor['id'], {'status': 'disabled'},
                       version='2.53', token=ADMIN)[0] == 400
    aio.request('DELETE', '/servers/' + server['id'])


def test_delete_service_refusals(aio):
    assert aio.request('DELETE', '/os-services/9999', version='2.1', token=ADMIN)[0] == 404
    assert aio.request('DELETE', '/os-services/abc', version='2.53', token=ADMIN)[0] == 400
    assert aio.request('DELETE', '/os-services/1', version='2.1')[0] == 403


@pytest.mark.parametrize('version', ['2.1', '2.28', '2.33', '2.53', '2.75', '2.88'])
def test_hypervisors(aio, version):
    status, _h, body = get(aio, '/os-hypervisors', version)
    ts.validate('hypervisors', 'list_search_hypervisors', version, status, body)
    hyp = body['hypervisors'][0]
    assert (hyp['state'], hyp['status']) == ('up', 'enabled')
    status, _h, body = get(aio, '/os-hypervisors/detail', version)
    status, _h, shown = get(aio, '/os-hypervisors/%s' % hyp['id'], version)
    if version < '2.88' or version == '2.1':
        ts.validate('hypervisors', 'list_hypervisors_detail', version, status, body)
        ts.validate('hypervisors', 'get_hypervisor', version, status, shown)
        assert isinstance(shown['hypervisor']['cpu_info'],
                          dict if version >= '2.28' else str)
    else:
        # 2.88: usage fields gone; show carries the uptime.
        assert 'vcpus' not in shown['hypervisor'] and 'uptime' in shown['hypervisor']
        assert get(aio, '/os-hypervisors/statistics', version)[0] == 404
    assert shown['hypervisor']['hypervisor_hostname'] == hyp['hypervisor_hostname']
    assert get(aio, '/os-hypervisors', version, token='demo:demo')[0] == 403


def test_hypervisor_statistics_uptime_search_servers(aio):
    status, _h, body = get(aio, '/os-hypervisors/statistics', '2.1')
    ts.validate('hypervisors', 'get_hypervisor_statistics', '2.1', status, body)
    assert body['hypervisor_statistics']['count'] == 1
    hyp = get(aio, '/os-hypervisors', '2.1')[2]['hypervisors'][0]
    status, _h, body = get(aio, '/os-hypervisors/%s/uptime' % hyp['id'], '2.1')
    ts.validate('hypervisors', 'get_hypervisor_uptime', '2.1', status, body)
    assert 'load average' in body['hypervisor']['uptime']
    name = hyp['hypervisor_hostname']
    status, _h, body = get(aio, '/os-hypervisors/%s/search' % name[:3], '2.1')
    ts.validate('hypervisors', 'list_search_hypervisors', '2.1', status, body)
    status, _h, body = get(aio, '/os-hypervisors/%s/servers' % name, '2.1')
    ts.validate('hypervisors', 'get_hypervisors_servers', '2.1', status, body)
    assert get(aio, '/os-hypervisors/nomatch/search', '2.1')[0] == 404
    assert get(aio, '/os-hypervisors/nomatch/servers', '2.1')[0] == 404
    assert get(aio, '/os-hypervisors/x/search', '2.53')[0] == 404
    fake = '8f1b2a54-3c58-4a4a-9b4f-2e2d3c4b5a69'
    assert get(aio, '/os-hypervisors/' + fake, '2.1')[0] == 404
    assert get(aio, '/os-hypervisors/%s/uptime' % fake, '2.1')[0] == 404
    assert get(aio, '/os-hypervisors/' + fake, '2.53')[0] == 404
    assert get(aio, '/os-hypervisors/1', '2.53')[0] == 400
    assert get(aio, '/os-hypervisors/statistics', '2.1', token='demo:demo')[0] == 403


def test_hypervisors_2_53_servers_pattern_paging(aio, image, nano):
    status, _h, body = aio.request('POST', '/servers', server_body(image, name='onhyp'),
                                   version='2.37')
    server = aio.wait_for_status(body['server']['id'], ['ACTIVE'])
    status, _h, body = get(aio, '/os-hypervisors/detail?with_servers=true', '2.53')
    ts.validate('hypervisors', 'list_hypervisors_detail', '2.53', status, body)
    assert server['id'] in [s['uuid'] for s in body['hypervisors'][0]['servers']]
    hyp = body['hypervisors'][0]
    status, _h, body = get(aio, '/os-hypervisors/%s?with_servers=1' % hyp['id'], '2.53')
    ts.validate('hypervisors', 'get_hypervisor', '2.53', status, body)
    name = hyp['hypervisor_hostname']
    status, _h, body = get(aio, '/os-hypervisors?hypervisor_hostname_pattern=%s' % name,
                           '2.53')
    assert [h['id'] for h in body['hypervisors']] == [hyp['id']]
    assert get(aio, '/os-hypervisors?hypervisor_hostname_pattern=zz', '2.53')[0] == 404
    assert get(aio, '/os-hypervisors?hypervisor_hostname_pattern=a&limit=1', '2.53')[0] == 400
    status, _h, body = get(aio, '/os-hypervisors?limit=1', '2.53')
    assert 'hypervisors_links' in body
    assert get(aio, '/os-hypervisors?marker=%s' % hyp['id'], '2.53')[2]['hypervisors'] == []
    assert get(aio, '/os-hypervisors?marker=nope', '2.53')[0] == 400
    aio.request('DELETE', '/servers/' + server['id'])
    aio.wait_for_status(server['id'], ['DELETED'])
    status, _h, body = get(aio, '/os-hypervisors?with_servers=true', '2.75')
    assert body['hypervisors'][0]['servers'] == []

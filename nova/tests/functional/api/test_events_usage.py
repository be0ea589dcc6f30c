"""External events, migrations, simple tenant usage and the usage audit log on the all-in-one."""

import datetime
import uuid

import pytest

from nova.tests.functional.api import tempest_schemas as ts
from nova.tests.functional.api.conftest import server_body

ADMIN = 'admin:admin'
FMT = '%Y-%m-%dT%H:%M:%S.%f'


@pytest.fixture(scope='module')
def server(aio, image, nano):
    status, _h, body = aio.request('POST', '/servers', server_body(image, name='ev'),
                                   version='2.37')
    assert status == 202, body
    return aio.wait_for_status(body['server']['id'], ['ACTIVE'])


def _events(aio, events, version='2.1', token=ADMIN):
    return aio.request('POST', '/os-server-external-events', {'events': events},
                       version=version, token=token)[::2]


def test_network_changed_is_accepted(aio, server):
    status, body = _events(aio, [{'name': 'network-changed', 'server_uuid': server['id']}])
    ts.validate_schema(ts.find('server_external_events', 'create', '2.1'), status, body)
    assert body['events'][0] == {'name': 'network-changed', 'server_uuid': server['id'],
                                 'status': 'completed', 'code': 200}


def test_mixed_events_are_207_with_per_event_codes(aio, server):
    missing = str(uuid.uuid4())
    status, body = _events(aio, [
        {'name': 'network-changed', 'server_uuid': server['id']},
        {'name': 'network-vif-plugged', 'server_uuid': missing, 'tag': 'port'},
        {'name': 'volume-extended', 'server_uuid': server['id']},
    ], version='2.51')
    assert status == 207, body
    assert [(e['code'], e['status']) for e in body['events']] == [
        (200, 'completed'), (404, 'failed'), (400, 'failed')]


def test_no_known_instance_is_404(aio):
    status, body = _events(aio, [{'name': 'network-changed', 'server_uuid': str(uuid.uuid4())}])
    assert status == 404 and body['itemNotFound']['message'] == \
        'No instances found for any event'


@pytest.mark.parametrize('version,name,ok', [
    ('2.50', 'volume-extended', False), ('2.51', 'volume-extended', True),
    ('2.75', 'power-update', False), ('2.76', 'power-update', True),
])
def test_event_names_follow_microversions(aio, server, version, name, ok):
    status, body = _events(aio, [{'name': name, 'server_uuid': server['id'],
                                  'tag': 'POWER_ON' if name == 'power-update' else 'vol'}],
                           version=version)
    if ok:
        assert status == 200 and body['events'][0]['code'] == 200, body
    else:
        assert status == 400 and 'name' in body['badRequest']['message'], body


@pytest.mark.parametrize('events,field', [
    ([], 'events'), ([{'name': 'network-changed'}], 'server_uuid'),
    ([{'name': 'network-changed', 'server_uuid': 'x'}], 'server_uuid'),
    ([{'name': 'network-changed', 'server_uuid': str(uuid.uuid4()), 'status': 'ok'}],
     'status'),
])
def test_bad_events_are_400(aio, events, field):
    status, body = _events(aio, events)
    assert status == 400 and field in body['badRequest']['message'], body


def test_events_are_for_admins_and_services(aio, server):
    event = [{'name': 'network-changed', 'server_uuid': server['id']}]
    assert _events(aio, event, token='demo:demo')[0] == 403


@pytest.mark.parametrize('version', ['2.1', '2.23', '2.59', '2.80', '2.104'])
def test_migrations_are_empty(aio, server, version):
    status, _h, body = aio.request('GET', '/os-migrations', version=version, token=ADMIN)
    ts.validate('migrations', 'list_migrations', version, status, body)
    assert body == {'migrations': []}
    status, _h, body = aio.request('GET', '/servers/%s/migrations' % server['id'],
                                   version=version, token=ADMIN)
    if version == '2.1':
        assert status == 404
    else:
        ts.validate('servers', 'list_live_migrations', version, status, body)


def test_migrations_query_validation(aio):
    get = lambda q, v: aio.request('GET', '/os-migrations' + q, version=v,  # noqa: E731
                                   token=ADMIN)[::2]
    assert get('?foo=1', '2.58')[0] == 200
    assert get('?foo=1', '2.59')[0] == 400
    assert get('?user_id=u', '2.79')[0] == 400
    assert get('?user_id=u&project_id=p', '2.80')[0] == 200
    assert get('?limit=x', '2.59')[0] == 400
    status, body = get('?marker=abc', '2.59')
    assert status == 400 and 'Marker abc could not be found.' in str(body)
    assert get('', '2.1')[0] == 200 and aio.request('GET', '/os-migrations')[0] == 403


def _window(days=1):
    now = datetime.datetime.utcnow()
    return ((now - datetime.timedelta(days=days)).strftime(FMT),
            (now + datetime.timedelta(hours=1)).strftime(FMT))


def test_simple_tenant_usage(aio, server):
    start, end = _window()
    query = '?start=%s&end=%s' % (start, end)
    status, _h, body = aio.request('GET', '/os-simple-tenant-usage' + query + '&detailed=1',
                                   token=ADMIN)
    ts.validate('tenant_usages', 'list_tenant_usage', '2.1', status, body)
    demo = next(u for u in body['tenant_usages'] if u['tenant_id'] == 'demo')
    usage = next(s for s in demo['server_usages'] if s['instance_id'] == server['id'])
    assert usage['state'] == 'active' and usage['memory_mb'] == 1 and usage['hours'] > 0
    assert demo['total_memory_mb_usage'] >= usage['hours']
    status, _h, body = aio.request('GET', '/os-simple-tenant-usage/demo' + query)
    ts.validate('tenant_usages', 'get_tenant_usage', '2.1', status, body)
    assert server['id'] in [s['instance_id'] for s in body['tenant_usage']['server_usages']]
    status, _h, body = aio.request('GET', '/os-simple-tenant-usage/nobody' + query,
                                   token=ADMIN)
    assert status == 200 and body == {'tenant_usage': {}}
    # A window before the server launched bills nothing.
    old = '?start=2000-01-01T00:00:00&end=2000-01-02T00:00:00'
    assert aio.request('GET', '/os-simple-tenant-usage/demo' + old)[2] == {'tenant_usage': {}}


def test_simple_tenant_usage_refusals_and_paging(aio, server):
    start, end = _window()
    assert aio.request('GET', '/os-simple-tenant-usage')[0] == 403
    assert aio.request('GET', '/os-simple-tenant-usage/other')[0] == 403
    status, _h, body = aio.request('GET', '/os-simple-tenant-usage?start=%s&end=%s'
                                   % (end, start), token=ADMIN)
    assert status == 400 and 'start time cannot occur after' in str(body)
    status, _h, body = aio.request('GET', '/os-simple-tenant-usage?start=yesterday',
                                   token=ADMIN)
    assert status == 400 and 'invalid format' in str(body)
    query = '/os-simple-tenant-usage?start=%s&end=%s&limit=1' % (start, end)
    status, _h, body = aio.request('GET', query, version='2.40', token=ADMIN)
    assert status == 200 and 'tenant_usages_links' in body, body
    assert 'marker=' in body['tenant_usages_links'][0]['href']
    status, _h, body = aio.request('GET', query + '&marker=nope', version='2.40', token=ADMIN)
    assert status == 400 and 'Marker nope could not be found.' in str(body)


def test_instance_usage_audit_log(aio):
    status, _h, body = aio.request('GET', '/os-instance_usage_audit_log', token=ADMIN)
    ts.validate('instance_usage_audit_logs', 'list_instance_usage_audit_log', '2.1', status,
                body)
    log = body['instance_usage_audit_logs']
    assert log['num_hosts'] == 1 and log['hosts_not_run'] == ['testhost']
    status, _h, body = aio.request('GET', '/os-instance_usage_audit_log/'
                                   '2026-03-15%2010:00:00', token=ADMIN)
    ts.validate('instance_usage_audit_logs', 'get_instance_usage_audit_log', '2.1', status,
                body)
    assert body['instance_usage_audit_log']['period_beginning'] == '2026-02-01 00:00:00'
    assert body['instance_usage_audit_log']['period_ending'] == '2026-03-01 00:00:00'
    status, _h, body = aio.request('GET', '/os-instance_usage_audit_log/notatime',
                                   token=ADMIN)
    assert status == 400 and 'Invalid timestamp for date notatime' in str(body)
    assert aio.request('GET', '/os-instance_usage_audit_log')[0] == 403

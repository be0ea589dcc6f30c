"""Periodic reconciliation without a restart (test:///default): lost casts and requests."""

import time

import pytest

from nova import conf as nova_conf
from nova import context as nova_context
from nova.tests.functional import fixtures

V = '2.100'


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('reconcile')
    running = fixtures.RunningAio(tmp, extra={('DEFAULT', 'reconcile_interval'): 1,
                                              # Long enough for a build on a loaded
                                              # machine not to count as lost.
                                              ('DEFAULT', 'stuck_task_timeout'): 4,
                                              ('DEFAULT', 'ram_allocation_ratio'): 100.0,
                                              ('DEFAULT', 'cpu_allocation_ratio'): 100.0,
                                              # The tests destroy guests by hand to stage
                                              # lost requests; the lifecycle events of those
                                              # destroys (a stop path of their own, tested
                                              # elsewhere) would race with the staged state.
                                              ('DEFAULT', 'handle_virt_lifecycle_events'):
                                                  False})
    running.image_id = running.upload_image(fixtures.tiny_disk(tmp / 'disk.img'))
    running.compute = running.aio.services[1].manager
    yield running
    running.stop()


def _server(aio):
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'periodic', 'imageRef': aio.image_id, 'flavorRef': '1',
        'networks': 'none'}}, version=V)
    assert status == 202, body
    aio.wait_for_status(body['server']['id'], ['ACTIVE'])
    return body['server']['id']


def _lost(aio, sid, action, values):
    """What the API records before a cast that never arrives."""
    ctx = nova_context.RequestContext(user_id='demo', project_id='demo')
    aio.db.action_start(ctx, sid, action)
    aio.db.instance_update(sid, values)


def _wait(predicate, timeout=15):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, 'not reconciled in %ss' % timeout
        time.sleep(0.1)


def test_lost_rescue_cast_is_rolled_back_but_not_while_an_operation_runs(aio):
    sid = _server(aio)
    lock = aio.compute.core.lock(sid)
    with lock:
        _lost(aio, sid, 'rescue', {'task_state': 'rescuing'})
        # Stale for a few periods, but an operation holds the instance here.
        time.sleep(6)
        assert aio.db.instance_get(sid)['task_state'] == 'rescuing'
    _wait(lambda: aio.db.instance_get(sid)['task_state'] is None)
    row = aio.db.instance_get(sid)
    assert row['vm_state'] == 'active' and row['power_state'] == 1
    assert 'rescue was rolled back' in aio.db.faults_latest([sid])[sid]['message']
    status, _h, body = aio.request('GET', '/servers/%s/os-instance-actions' % sid,
                                   version='2.51')
    rescue = body['instanceActions'][0]
    assert rescue['action'] == 'rescue'
    status, _h, body = aio.request(
        'GET', '/servers/%s/os-instance-actions/%s' % (sid, rescue['request_id']),
        version='2.51', token='admin:admin')
    assert [e['event'] for e in body['instanceAction']['events']] == ['compute_reconcile']


def test_lost_stop_cast_clears_the_task(aio):
    sid = _server(aio)
    _lost(aio, sid, 'stop', {'task_state': 'powering-off'})
    _wait(lambda: aio.db.instance_get(sid)['task_state'] is None)
    assert aio.db.instance_get(sid)['vm_state'] == 'active'
    assert 'powering-off' in aio.db.faults_latest([sid])[sid]['message']


def test_interrupted_rebuild_ends_in_error_with_a_fault(aio):
    sid = _server(aio)
    _lost(aio, sid, 'rebuild', {'task_state': 'rebuild_spawning'})
    _wait(lambda: aio.db.instance_get(sid)['task_state'] is None)
    server = aio.request('GET', '/servers/' + sid, version=V)[2]['server']
    assert server['status'] == 'ERROR'
    assert 'rebuild was interrupted' in server['fault']['message']


def test_lost_build_request_ends_in_error_with_a_fault(aio):
    sid = _server(aio)
    # As if the conductor never got the request: no host chosen.
    aio.compute.driver.destroy(nova_context.get_admin_context(), _obj(aio, sid))
    aio.db.instance_update(sid, {'vm_state': 'building', 'task_state': 'scheduling',
                                 'host': None, 'node': None})
    # The state changes first (compare-and-swap), the fault right after.
    _wait(lambda: aio.db.instance_get(sid)['vm_state'] == 'error' and
          sid in aio.db.faults_latest([sid]))
    server = aio.request('GET', '/servers/' + sid, version=V)[2]['server']
    assert server['status'] == 'ERROR'
    assert 'lost before a host was chosen' in server['fault']['message']


def _obj(aio, sid):
    from nova.objects import instance as instance_obj
    return instance_obj.Instance.from_db(aio.db.instance_get(sid))


def test_volume_reserved_by_a_lost_attach_request_is_released(aio):
    sid = _server(aio)
    headers = {'OpenStack-API-Version': 'volume 3.44'}
    url = aio.aio.urls['volume']
    status, _h, body = aio.request('POST', '/v3/demo/volumes', {'volume': {'size': 1}},
                                   url=url, headers=headers)
    assert status == 202, body
    vid = body['volume']['id']

    def volume_status():
        return aio.request('GET', '/v3/demo/volumes/' + vid, url=url,
                           headers=headers)[2]['volume']['status']
    _wait(lambda: volume_status() == 'available')
    # What the API does first; it died before recording the mapping.
    instance = _obj(aio, sid)
    vctx = aio.compute.volume_api.context_for(nova_context.get_admin_context(), instance)
    aio.compute.volume_api.attachment_create(vctx, vid, sid)
    assert volume_status() == 'reserved'
    # The fault is written right after the release: wait for both.
    _wait(lambda: volume_status() == 'available' and sid in aio.db.faults_latest([sid]))
    assert 'reserved for the server but never mapped' in \
        aio.db.faults_latest([sid])[sid]['message']



def test_an_unreachable_volume_service_does_not_hold_up_the_run(aio):
    sids = [_server(aio), _server(aio)]
    # Unset in the default all-in-one (the client calls its embedded endpoint
    # directly) until registered; set, it sends the client elsewhere.
    nova_conf.register_client_opts(aio.conf, 'cinder')
    endpoint = aio.conf.cinder.endpoint_override
    aio.conf.set_override('endpoint_override', 'http://127.0.0.1:9', group='cinder')
    try:
        started = time.monotonic()
        aio.compute.reconcile.reconcile_instances(startup=True)
        assert time.monotonic() - started < 10
        assert aio.compute.reconcile._volumes_unreachable
    finally:
        aio.conf.set_override('endpoint_override', endpoint, group='cinder')
    for sid in sids:
        assert aio.db.instance_get(sid)['vm_state'] == 'active'

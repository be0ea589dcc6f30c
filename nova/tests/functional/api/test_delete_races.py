"""Deleting a server while it builds always releases its claim and leaves no guest."""

import threading
import time

import pytest

from nova.tests.functional.api.conftest import server_body


def _usage(aio):
    node = aio.db.compute_node_get('testhost')
    return node['vcpus_used'], node['memory_mb_used'], node['local_gb_used']


def _guests(aio):
    manager = aio.aio.services[1].manager
    prefix = aio.conf.instance_name_template.split('%')[0]
    conn = manager.driver.host.get_connection()
    return [d.name() for d in conn.listAllDomains() if d.name().startswith(prefix)]


def _wait_gone(aio, timeout=30):
    deadline = time.monotonic() + timeout
    while aio.db.instance_count() or any(
            r['task_state'] for r in aio.db.instance_get_all({})):
        assert time.monotonic() < deadline, aio.db.instance_get_all({})
        time.sleep(0.05)


def test_delete_at_any_moment_of_the_build_leaks_nothing(aio, image, nano):
    _wait_gone(aio)
    before = _usage(aio)
    # Delays spread over scheduling, claiming, spawning and just after ACTIVE.
    for round_, delay in enumerate([0, 0, 0.001, 0.003, 0.005, 0.01, 0.02, 0.03, 0.05,
                                    0.08, 0.1, 0.15, 0.2, 0, 0.002, 0.004, 0.007, 0.012,
                                    0.025, 0.04]):
        status, _h, body = aio.request('POST', '/servers',
                                       server_body(image, name='del-%d' % round_),
                                       version='2.37')
        assert status == 202, body
        time.sleep(delay)
        assert aio.request('DELETE', '/servers/' + body['server']['id'])[0] == 204
    _wait_gone(aio)
    # Give any build that lost the race time to finish its own clean-up.
    time.sleep(0.5)
    assert _usage(aio) == before
    assert _guests(aio) == []


def test_concurrent_deletes_of_a_building_server_release_once(aio, image, nano):
    _wait_gone(aio)
    before = _usage(aio)
    status, _h, body = aio.request('POST', '/servers', server_body(image, name='twice'),
                                   version='2.37')
    assert status == 202
    sid = body['server']['id']
    barrier = threading.Barrier(3)
    codes = []

    def delete():
        barrier.wait()
        codes.append(aio.request('DELETE', '/servers/' + sid)[0])
    threads = [threading.Thread(target=delete) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert set(codes) <= {204, 404} and 204 in codes, codes
    _wait_gone(aio)
    time.sleep(0.5)
    assert _usage(aio) == before
    assert _guests(aio) == []


@pytest.mark.usefixtures('nano')
def test_a_leaked_claim_does_not_survive_a_restart(aio, image):
    _wait_gone(aio)
    status, _h, body = aio.request('POST', '/servers', server_body(image, name='keep'),
                                   version='2.37')
    assert status == 202
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    with_server = _usage(aio)
    # A claim nobody will release (as a crash between claim and build leaves).
    assert aio.db.compute_node_claim('testhost', 1, 1, 1)
    assert _usage(aio) != with_server
    aio.aio.services[1].manager.init_host()
    assert _usage(aio) == with_server
    aio.request('DELETE', '/servers/' + sid)
    _wait_gone(aio)

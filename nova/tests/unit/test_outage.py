"""A database outage: recognised, answered 503 by the API, logged once by services."""

import json
import logging
import time

import oslo_messaging as messaging
import pytest
import sqlalchemy.exc as sa_exc
import webob
from oslo_db import exception as db_exc

from nova import conf as nova_conf
from nova import outage, service
from nova.api import deploy
from nova.compute import retry_queue

REFUSED = sa_exc.OperationalError('SELECT 1', {}, Exception('connection refused'))


def test_database_errors_are_recognised():
    assert outage.database_unavailable(REFUSED)
    assert outage.database_unavailable(db_exc.DBConnectionError('gone'))
    assert outage.database_unavailable(messaging.RemoteError('OperationalError', 'refused'))
    assert not outage.database_unavailable(messaging.RemoteError('InstanceNotFound', 'x'))
    assert not outage.database_unavailable(db_exc.DBDuplicateEntry())
    assert not outage.database_unavailable(ValueError('x'))


class _Servers:
    def get_for_view(self, *args, **kwargs):
        raise REFUSED


class _Compute:
    servers = _Servers()


def test_api_answers_503_without_a_traceback(caplog):
    conf = nova_conf.new_config()
    conf.set_override('auth_strategy', 'noauth2', group='api')
    app = deploy.build_app(conf, _Compute())
    with caplog.at_level(logging.WARNING):
        resp = webob.Request.blank('/v2.1/servers/x', headers={
            'X-Auth-Token': 'demo:demo'}).get_response(app)
    assert resp.status_int == 503, resp.body
    assert json.loads(resp.body)['serviceUnavailable']['message'] == \
        'The database is unavailable; try again.'
    records = [r for r in caplog.records if r.name == 'nova.api.deploy']
    assert len(records) == 1 and records[0].exc_info is None, records


def test_outage_log_says_it_once_and_the_recovery_once(caplog):
    log = outage.OutageLog(logging.getLogger('t'), 'task')
    with caplog.at_level(logging.INFO, logger='t'):
        for _ in range(5):
            log.failed(REFUSED)
        log.succeeded()
        log.succeeded()
    assert [r.levelname for r in caplog.records] == ['WARNING', 'INFO']
    assert all(r.exc_info is None for r in caplog.records)


class _Endpoint:
    target = messaging.Target(version='1.0')

    def __init__(self):
        self.fail = True

    def work(self, ctxt):
        if self.fail:
            raise REFUSED
        return 'done'

    def refuse(self, ctxt):
        raise ValueError('a bug')


def test_quiet_endpoint_makes_the_outage_expected():
    inner = _Endpoint()
    endpoint = outage.quiet_endpoint(inner, outage.OutageLog(logging.getLogger('t'), 'rpc'))
    assert endpoint.target is inner.target
    with pytest.raises(messaging.ExpectedException) as caught:
        endpoint.work({})
    # The reply carries the database error itself.
    assert caught.value.exc_info[1] is REFUSED
    with pytest.raises(ValueError):
        endpoint.refuse({})
    inner.fail = False
    assert endpoint.work({}) == 'done'
    assert not hasattr(endpoint, 'missing')


def test_periodic_task_logs_an_outage_once(caplog):
    calls = []

    def func():
        calls.append(1)
        if len(calls) < 4:
            raise REFUSED
        thread.stop()
    thread = service.PeriodicThread(func, 0.01, 'heartbeat')
    with caplog.at_level(logging.INFO, logger='nova.service'):
        thread.start()
        thread.join(5)
    levels = [r.levelname for r in caplog.records if r.name == 'nova.service']
    assert levels == ['WARNING', 'INFO'], caplog.records
    assert all(r.exc_info is None for r in caplog.records)


def test_retry_queue_logs_an_outage_without_a_traceback(caplog):
    queue = retry_queue.RetryQueue('test-retries')

    def fails():
        raise messaging.RemoteError('DBConnectionError', 'gone')
    with caplog.at_level(logging.WARNING, logger='nova.compute.retry_queue'):
        queue.call_later(0, fails)
        queue.call_later(0, fails)
        deadline = time.monotonic() + 5
        while queue.pending() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.1)
    queue.stop()
    records = [r for r in caplog.records if r.name == 'nova.compute.retry_queue']
    assert len(records) == 1 and records[0].exc_info is None, records

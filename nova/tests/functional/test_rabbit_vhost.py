"""The split-service tests' throwaway RabbitMQ virtual host: made, usable, deleted, or a skip."""

import subprocess
import time

import kombu
import pytest

from nova.tests.functional import services


def _vhosts():
    done = subprocess.run(['rabbitmqctl', '-q', 'list_vhosts'], capture_output=True,
                          text=True, check=True, timeout=60)
    return done.stdout.split()


def test_made_usable_by_the_url_user_and_deleted_afterwards():
    with services.ThrowawayVhost() as vhost:
        name = vhost.name
        assert name in _vhosts()
        assert vhost.url == services.RABBIT_URL.rstrip('/') + '/' + vhost.name
        # The URL's user may declare and use queues there (set_permissions).
        with kombu.Connection(vhost.url.replace('rabbit://', 'amqp://', 1),
                              connect_timeout=5) as conn:
            queue = kombu.Queue('conductor', channel=conn.channel(), auto_delete=True)
            queue.declare()
            kombu.Producer(conn).publish({'ping': 1}, routing_key='conductor')
            message = queue.get(no_ack=True)
            for _ in range(50):
                if message is not None:
                    break
                time.sleep(0.1)
                message = queue.get(no_ack=True)
            assert message is not None and message.payload == {'ping': 1}
    assert vhost.name is None and name not in _vhosts()


def test_a_url_naming_a_vhost_is_used_as_given():
    url = services.RABBIT_URL.rstrip('/') + '/kept'
    with services.ThrowawayVhost(url) as vhost:
        assert vhost.url == url and vhost.name is None


def test_without_rabbitmqctl_the_test_is_skipped_with_the_reason(monkeypatch):
    services.require(services.RABBIT_URL, 'RabbitMQ')
    monkeypatch.setenv('PATH', '/nonexistent')
    with pytest.raises(pytest.skip.Exception, match='rabbitmqctl not found'):
        with services.ThrowawayVhost():
            pass


def test_without_a_broker_the_test_is_skipped():
    with pytest.raises(pytest.skip.Exception, match='RabbitMQ not reachable'):
        with services.ThrowawayVhost('rabbit://guest:guest@127.0.0.1:1/'):
            pass

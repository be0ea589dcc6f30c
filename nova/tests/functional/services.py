"""Where the outside services for functional tests are, and throwaway databases on them."""

import os
import shutil
import socket
import subprocess
import urllib.parse
import uuid

import pytest
import sqlalchemy as sa

RABBIT_URL = os.environ.get('NOVA_TEST_RABBIT_URL', 'rabbit://guest:guest@127.0.0.1:5672/')
PG_URL = os.environ.get('NOVA_TEST_PG_URL', 'postgresql+psycopg2://postgres@127.0.0.1:5432/test')
MYSQL_URL = os.environ.get('NOVA_TEST_MYSQL_URL', 'mysql+pymysql://root@127.0.0.1:3306/test')


def reachable(url):
    parsed = urllib.parse.urlparse(url.replace('+psycopg2', '').replace('+pymysql', ''))
    try:
        with socket.create_connection((parsed.hostname, parsed.port), timeout=1):
            return True
    except OSError:
        return False


def require(url, what):
    if not reachable(url):
        pytest.skip('%s not reachable at %s (set the NOVA_TEST_* variable, see README)'
                    % (what, url))


class ThrowawayDatabase:
    """CREATE a uniquely named database on a server, DROP it afterwards."""

    def __init__(self, server_url):
        self.server_url = server_url
        self.name = 'nova_test_%s' % uuid.uuid4().hex[:10]
        base = sa.engine.make_url(server_url)
        self.url = base.set(database=self.name).render_as_string(hide_password=False)
        # Pinged: the server may have been restarted (a fault loop's own) since.
        self._admin = sa.create_engine(server_url, isolation_level='AUTOCOMMIT',
                                       pool_pre_ping=True)

    def __enter__(self):
        with self._admin.connect() as conn:
            conn.execute(sa.text('CREATE DATABASE %s' % self.name))
        return self

    def __exit__(self, *exc):
        with self._admin.connect() as conn:
            if self._admin.dialect.name == 'postgresql':
                conn.execute(sa.text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = '%s' AND pid <> pg_backend_pid()" % self.name))
            conn.execute(sa.text('DROP DATABASE %s' % self.name))
        self._admin.dispose()


class ThrowawayVhost:
    """A RabbitMQ virtual host of one deployment's own: add_vhost, delete_vhost afterwards.

    oslo.messaging names a topic's queue after the topic alone ("conductor",
    "compute.<host>"), whatever the control_exchange: two deployments on one
    virtual host take each other's calls. ``url`` is the broker URL with the
    new virtual host. A URL that already names a virtual host is used as it
    is (one the caller keeps for these tests). Skips the test when the broker
    does not answer or rabbitmqctl cannot make the virtual host.
    """

    def __init__(self, broker_url=None):
        self.broker_url = broker_url or RABBIT_URL
        self.name = None
        self.url = self.broker_url

    def __enter__(self):
        require(self.broker_url, 'RabbitMQ')
        parsed = urllib.parse.urlparse(self.broker_url)
        if parsed.path not in ('', '/'):
            return self
        ctl = shutil.which('rabbitmqctl')
        if ctl is None:
            pytest.skip('rabbitmqctl not found: the split-service tests make a RabbitMQ '
                        'virtual host of their own (or name one in NOVA_TEST_RABBIT_URL)')
        name = 'nova_test_%s' % uuid.uuid4().hex[:10]
        user = urllib.parse.unquote(parsed.username or 'guest')
        for args in (['add_vhost', name], ['set_permissions', '-p', name, user,
                                           '.*', '.*', '.*']):
            done = subprocess.run([ctl, '-q'] + args, capture_output=True, text=True,
                                  timeout=60)
            if done.returncode:
                if args[0] != 'add_vhost':
                    self.name = name
                    self.__exit__()
                pytest.skip('rabbitmqctl %s failed (%s): the split-service tests make a '
                            'RabbitMQ virtual host of their own (or name one in '
                            'NOVA_TEST_RABBIT_URL)' % (args[0], (done.stderr or
                                                                 done.stdout).strip()))
        self.name = name
        self.url = self.broker_url.rstrip('/') + '/' + name
        return self

    def __exit__(self, *exc):
        if self.name is not None:
            subprocess.run([shutil.which('rabbitmqctl'), '-q', 'delete_vhost', self.name],
                           capture_output=True, timeout=60)
            self.name = None

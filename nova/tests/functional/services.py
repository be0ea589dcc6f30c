"""Where the outside services for functional tests are, and throwaway databases on them."""

import os
import socket
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
        self._admin = sa.create_engine(server_url, isolation_level='AUTOCOMMIT')

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

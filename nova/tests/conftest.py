"""pytest set-up shared by unit and functional tests."""

import os

import pytest

from nova import objects

objects.register_all()

# Every all-in-one a test starts (in this process or a child, from any
# config file) runs without the network data plane and with the network API
# on a free port, unless the test asks otherwise: the plane would put a bridge
# and an address in the root namespace, and parallel tests would fight over
# br-aio and port 9696. oslo.config reads OS_<GROUP>__<OPTION> from the
# environment, above the config files; tests of the plane override it
# (set_override, or their own environment for a child process).
os.environ.setdefault('OS_AIO__NETWORK_DATAPLANE', 'false')
os.environ.setdefault('OS_AIO__NETWORK_PORT', '0')


@pytest.fixture
def db(tmp_path):
    """A migrated SQLite database in a temporary file."""
    from nova.db import api as db_api
    database = db_api.Database('sqlite:///%s' % (tmp_path / 'nova.sqlite'))
    database.sync()
    yield database
    database.dispose()

"""pytest set-up shared by unit and functional tests."""

import pytest

from nova import objects

objects.register_all()


@pytest.fixture
def db(tmp_path):
    """A migrated SQLite database in a temporary file."""
    from nova.db import api as db_api
    database = db_api.Database('sqlite:///%s' % (tmp_path / 'nova.sqlite'))
    database.sync()
    yield database
    database.dispose()

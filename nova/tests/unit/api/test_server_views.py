"""Server view pieces that need no running service."""

import types

from nova.api.views import servers as views


def _req(version):
    return types.SimpleNamespace(is_at_least=lambda v: version >= v)


def test_volumes_attached_skips_volumes_without_an_id():
    bdms = [{'volume_id': None, 'delete_on_termination': True},
            {'volume_id': 'v1', 'delete_on_termination': False}]
    assert views._volumes(_req((2, 1)), bdms) == [{'id': 'v1'}]
    assert views._volumes(_req((2, 3)), bdms) == [{'id': 'v1',
                                                   'delete_on_termination': False}]

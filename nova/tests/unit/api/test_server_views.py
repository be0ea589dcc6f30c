"""Server view pieces that need no running service."""

from nova.api.views import servers as views


class _Req:
    def is_at_least(self, version):
        return True


def test_volumes_attached_leaves_out_volumes_not_created_yet():
    bdms = [{'volume_id': None, 'delete_on_termination': True},
            {'volume_id': 'a1b2', 'delete_on_termination': False}]
    assert views._volumes(_Req(), bdms) == [{'id': 'a1b2', 'delete_on_termination': False}]

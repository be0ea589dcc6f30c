"""GET /servers/{id}, the call clients poll: one indexed query, the same body as before."""

import sqlalchemy as sa

from nova.tests.functional.api import test_multiattach as volumes
from nova.tests.functional.api.conftest import server_body


class _Statements:
    """The SQL statements the all-in-one's database runs while in the block."""

    def __init__(self, engine):
        self.engine, self.seen = engine, []

    def _record(self, conn, cursor, statement, params, context, executemany):
        self.seen.append(statement)

    def __enter__(self):
        sa.event.listen(self.engine, 'before_cursor_execute', self._record)
        return self

    def __exit__(self, *exc):
        sa.event.remove(self.engine, 'before_cursor_execute', self._record)

    def selects(self):
        return [s for s in self.seen if s.lstrip().upper().startswith('SELECT')]


def _server_with_two_volumes_in_a_group(aio, image, nano):
    status, _h, body = aio.request('POST', '/os-server-groups', {'server_group': {
        'name': 'show-query', 'policy': 'soft-affinity'}}, version='2.64')
    assert status == 200, body
    group = body['server_group']['id']
    vids = [volumes._volume(aio)['id'] for _ in range(2)]
    bdm = [{'source_type': 'image', 'destination_type': 'local', 'uuid': image,
            'boot_index': 0}] + [
        {'source_type': 'volume', 'destination_type': 'volume', 'uuid': vid,
         'boot_index': -1, 'delete_on_termination': i == 1} for i, vid in enumerate(vids)]
    request = server_body(image, flavor=nano, name='show-query', version='2.71',
                          block_device_mapping_v2=bdm)
    request['os:scheduler_hints'] = {'group': group}
    status, _h, body = aio.request('POST', '/servers', request, version='2.71')
    assert status == 202, body
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    return sid, vids, group


def _show_in_one_query(aio, sid, version):
    """GET /servers/{id} at ``version``; asserts it ran exactly one SELECT."""
    with _Statements(aio.db.engine) as statements:
        status, _h, body = aio.request('GET', '/servers/%s' % sid, version=version)
    assert status == 200, body
    assert len(statements.selects()) == 1, statements.seen
    return body['server']


def test_show_is_one_query_with_volumes_and_groups(aio, image, nano):
    sid, vids, group = _server_with_two_volumes_in_a_group(aio, image, nano)
    server = _show_in_one_query(aio, sid, '2.106')
    # Each volume once, in attach order; the group once (a row per volume).
    assert server['os-extended-volumes:volumes_attached'] == [
        {'id': vids[0], 'delete_on_termination': False},
        {'id': vids[1], 'delete_on_termination': True}]
    assert server['server_groups'] == [group]
    # The list view of the same server agrees.
    status, _h, listed = aio.request('GET', '/servers/detail', version='2.106')
    (same,) = [s for s in listed['servers'] if s['id'] == sid]
    assert same['os-extended-volumes:volumes_attached'] == \
        server['os-extended-volumes:volumes_attached']


def test_show_before_2_71_has_no_groups_and_one_query(aio, image, nano):
    sid, vids, _group = _server_with_two_volumes_in_a_group(aio, image, nano)
    server = _show_in_one_query(aio, sid, '2.1')
    assert 'server_groups' not in server
    assert server['os-extended-volumes:volumes_attached'] == [{'id': vid} for vid in vids]


def test_show_of_another_projects_server_is_404(aio, image, nano):
    sid, _vids, _group = _server_with_two_volumes_in_a_group(aio, image, nano)
    status, _h, body = aio.request('GET', '/servers/%s' % sid, version='2.106',
                                   token='other:other')
    assert status == 404, body
    status, _h, body = aio.request('GET', '/servers/%s' % sid, version='2.106',
                                   token='admin:admin')
    assert status == 200 and body['server']['id'] == sid

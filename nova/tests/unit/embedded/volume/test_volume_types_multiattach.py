"""The embedded volume endpoint's volume types API and multiattach volumes, over real HTTP."""

import pytest

from nova.tests.unit.embedded.volume import volume_server as vs

MULTI_SPECS = {'multiattach': '<is> True'}


@pytest.fixture
def server(tmp_path):
    srv = vs.VolumeServer(str(tmp_path / 'volumes'))
    yield srv
    srv.stop()


@pytest.fixture
def api(server):
    return vs.Api(server.url)


@pytest.fixture
def admin(server):
    return vs.Api(server.url, user='admin')


def _fault(resp, code):
    assert resp.status_code == code, resp.text
    (fault,) = resp.json().values()
    assert fault['code'] == code
    return fault['message']


def _make_type(admin, name='multiattach', specs=MULTI_SPECS, **extra):
    body = {'volume_type': dict({'name': name, 'extra_specs': specs}, **extra)}
    resp = admin.post('/types', body)
    assert resp.status_code == 200, resp.text
    return resp.json()['volume_type']


def _complete(api, volume_id, instance):
    attachment = api.attach(volume_id, instance, connector={'host': 'h-' + instance[:4]})
    assert api.post('/attachments/%s/action' % attachment['id'],
                    {'os-complete': None}).status_code == 204
    return attachment


def test_type_life_cycle(api, admin):
    vtype = _make_type(admin, description='shared disks')
    assert vtype['extra_specs'] == MULTI_SPECS
    assert vtype['is_public'] is vtype['os-volume-type-access:is_public'] is True
    assert vtype['description'] == 'shared disks'
    names = [t['name'] for t in api.get('/types').json()['volume_types']]
    assert names == ['__DEFAULT__', 'multiattach']
    # Users see the specs Cinder shows them (multiattach is one).
    assert api.get('/types/' + vtype['id']).json()['volume_type'] == vtype
    assert admin.get('/types/multiattach').json()['volume_type']['id'] == vtype['id']

    specs = '/types/%s/extra_specs' % vtype['id']
    assert admin.post(specs, {'extra_specs': {'volume_backend_name': 'file'}}).ok
    assert admin.get(specs).json()['extra_specs'] == dict(
        MULTI_SPECS, volume_backend_name='file')
    assert api.get(specs).json()['extra_specs'] == MULTI_SPECS
    assert admin.get(specs + '/volume_backend_name').json() == {
        'volume_backend_name': 'file'}
    _fault(api.get(specs + '/volume_backend_name'), 404)
    resp = admin.put(specs + '/volume_backend_name', {'volume_backend_name': 'f2'})
    assert resp.json() == {'volume_backend_name': 'f2'}
    _fault(admin.put(specs + '/volume_backend_name', {'other': 'x'}), 400)
    assert admin.delete(specs + '/volume_backend_name').status_code == 202
    _fault(admin.delete(specs + '/volume_backend_name'), 404)

    renamed = admin.put('/types/' + vtype['id'], {'volume_type': {'name': 'shared'}})
    assert renamed.json()['volume_type']['name'] == 'shared'
    assert admin.delete('/types/' + vtype['id']).status_code == 202
    _fault(admin.get('/types/' + vtype['id']), 404)


def test_type_errors(api, admin, server):
    message = _fault(api.post('/types', {'volume_type': {'name': 'x'}}), 403)
    assert 'types_manage' in message
    vtype = _make_type(admin)
    _fault(admin.post('/types', {'volume_type': {'name': 'multiattach'}}), 409)
    for bad in ({'volume_type': {}}, {'volume_type': {'name': ''}},
                {'volume_type': {'name': 'y', 'extra_specs': {'k': 1}}},
                {'volume_type': {'name': 'y', 'extra_specs': {'bad key!': 'v'}}},
                {'volume_type': {'name': 'y', 'bogus': 1}}, {'name': 'y'}):
        _fault(admin.post('/types', bad), 400)
    _fault(admin.post('/types', {'volume_type': {'name': '   '}}), 400)
    _fault(api.delete('/types/' + vtype['id']), 403)
    _fault(api.post('/types/%s/extra_specs' % vtype['id'],
                    {'extra_specs': {'a': 'b'}}), 403)
    _fault(admin.delete('/types/' + vs.INSTANCE_1), 404)
    _fault(admin.post('/types/%s/extra_specs' % vs.INSTANCE_1,
                      {'extra_specs': {'a': 'b'}}), 404)
    _fault(admin.post('/types/%s/extra_specs' % vtype['id'], {'extra_specs': {}}), 400)
    _fault(admin.delete('/types/default'), 400)
    volume = api.create_volume(size=1, volume_type='multiattach')
    assert 'still in use' in _fault(admin.delete('/types/' + vtype['id']), 400)
    assert api.delete('/volumes/' + volume['id']).status_code == 202
    assert admin.delete('/types/' + vtype['id']).status_code == 202
    # A private type is the administrator's alone.
    private = _make_type(admin, name='private', specs={},
                         **{'os-volume-type-access:is_public': False})
    assert [t['name'] for t in api.get('/types').json()['volume_types']] == ['__DEFAULT__']
    _fault(api.get('/types/' + private['id']), 404)
    _fault(api.post('/volumes', {'volume': {'size': 1, 'volume_type': 'private'}}), 404)


def test_multiattach_volume_takes_several_attachments(api, admin, server):
    _make_type(admin)
    volume = api.create_volume(size=1, volume_type='multiattach')
    vid = volume['id']
    assert volume['multiattach'] is True
    assert api.volume(vid)['volume_type'] == 'multiattach'
    # A raw file: QEMU shares nothing else between guests.
    assert vs.qemu_info(server.volume_path(vid))['format'] == 'raw'

    first = _complete(api, vid, vs.INSTANCE_1)
    assert api.volume(vid)['status'] == 'in-use'
    # A second server joining: reserved, attaching, then in-use again.
    second = api.attach(vid, vs.INSTANCE_2)
    assert api.volume(vid)['status'] == 'reserved'
    assert len(api.volume(vid)['attachments']) == 1
    api.put('/attachments/' + second['id'], {'attachment': {'connector': {'host': 'h2'}}})
    assert api.volume(vid)['status'] == 'attaching'
    api.post('/attachments/%s/action' % second['id'], {'os-complete': None})
    shown = api.volume(vid)
    assert shown['status'] == 'in-use'
    assert sorted(a['server_id'] for a in shown['attachments']) == sorted(
        [vs.INSTANCE_1, vs.INSTANCE_2])
    assert {a['attachment_id'] for a in shown['attachments']} == {first['id'], second['id']}
    connection = api.get('/attachments/' + second['id']).json()['attachment'][
        'connection_info']['data']
    assert connection['format'] == 'raw'

    _fault(api.delete('/volumes/' + vid), 400)
    remaining = api.delete('/attachments/' + first['id']).json()['attachments']
    assert [a['instance'] for a in remaining] == [vs.INSTANCE_2]
    shown = api.volume(vid)
    assert shown['status'] == 'in-use'
    assert [a['server_id'] for a in shown['attachments']] == [vs.INSTANCE_2]
    api.delete('/attachments/' + second['id'])
    assert api.volume(vid)['status'] == 'available'
    assert api.delete('/volumes/' + vid).status_code == 202


def test_plain_volume_keeps_refusing_a_second_server(api, admin):
    _make_type(admin, name='plain', specs={'multiattach': '<is> False'})
    volume = api.create_volume(size=1, volume_type='plain')
    assert volume['multiattach'] is False
    _complete(api, volume['id'], vs.INSTANCE_1)
    message = _fault(api.post('/attachments', {'attachment': {
        'volume_uuid': volume['id'], 'instance_uuid': vs.INSTANCE_2}}), 400)
    assert 'in-use' in message
    # The request-body flag Cinder no longer honours is refused, not ignored.
    message = _fault(api.post('/volumes', {'volume': {'size': 1, 'multiattach': True}}), 400)
    assert "<is> True" in message


def test_types_survive_a_restart(tmp_path):
    first = vs.VolumeServer(str(tmp_path / 'v'))
    try:
        _make_type(vs.Api(first.url, user='admin'))
    finally:
        first.stop()
    again = vs.VolumeServer(str(tmp_path / 'v'))
    try:
        volume = vs.Api(again.url).create_volume(size=1, volume_type='multiattach')
        assert volume['multiattach'] is True
    finally:
        again.stop()

"""Microversion 2.63 trusted_image_certificates: validation, storage, every server view."""

import pytest

from nova.tests.functional import fixtures

V = '2.63'
IDS = ['0b5d2c72-12cc-4ba6-a8d7-3ff5cc1d8cb8', '674736e3-f25c-405c-8362-bbf991e0ce0a']


@pytest.fixture(scope='module')
def aio(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('trusted')
    running = fixtures.RunningAio(tmp)
    running.image_id = running.upload_image(fixtures.tiny_disk(tmp / 'disk.img'))
    yield running
    running.stop()


def _create(aio, certs, version=V, **extra):
    server = dict({'name': 'tc', 'imageRef': aio.image_id, 'flavorRef': '1',
                   'networks': 'none'}, **extra)
    if certs is not _ABSENT:
        server['trusted_image_certificates'] = certs
    return aio.request('POST', '/servers', {'server': server}, version=version)


_ABSENT = object()


def _boot(aio, certs):
    status, _h, body = _create(aio, certs)
    assert status == 202, body
    # Upstream's create answer carries no trusted_image_certificates.
    assert 'trusted_image_certificates' not in body['server']
    return body['server']['id']


@pytest.mark.parametrize('certs,version,needle', [
    (IDS, '2.62', 'trusted_image_certificates'),
    ([], V, 'trusted_image_certificates'),
    ([''], V, 'trusted_image_certificates'),
    ([IDS[0], IDS[0]], V, 'trusted_image_certificates'),
    (['x%d' % i for i in range(51)], V, 'trusted_image_certificates'),
    ('abc', V, 'trusted_image_certificates'),
    ([1], V, 'trusted_image_certificates'),
])
def test_invalid_certs_create_nothing(aio, certs, version, needle):
    before = aio.db.instance_count()
    status, _h, body = _create(aio, certs, version=version)
    assert status == 400, body
    assert needle in body['badRequest']['message']
    assert aio.db.instance_count() == before


def test_volume_boot_refused(aio):
    before = aio.db.instance_count()
    status, _h, body = aio.request('POST', '/servers', {'server': {
        'name': 'bfv', 'flavorRef': '1', 'networks': 'none',
        'trusted_image_certificates': IDS,
        'block_device_mapping_v2': [{'boot_index': 0, 'source_type': 'image',
                                     'destination_type': 'volume', 'uuid': aio.image_id,
                                     'volume_size': 1}]}}, version=V)
    assert status == 400, body
    assert body['badRequest']['message'] == (
        'Image certificate validation is not supported when booting from volume')
    assert aio.db.instance_count() == before


def test_kept_and_shown_in_every_view(aio):
    sid = _boot(aio, IDS)
    server = aio.wait_for_status(sid, ['ACTIVE'], version=V)
    assert server['trusted_image_certificates'] == IDS
    # Not before 2.63.
    _s, _h, old = aio.request('GET', '/servers/%s' % sid, version='2.62')
    assert 'trusted_image_certificates' not in old['server']
    _s, _h, detail = aio.request('GET', '/servers/detail', version=V)
    mine = next(s for s in detail['servers'] if s['id'] == sid)
    assert mine['trusted_image_certificates'] == IDS
    # tempest passes them as a list filter; upstream knows no such filter and ignores it.
    status, _h, filtered = aio.request(
        'GET', '/servers/detail?trusted_image_certificates=%s' % IDS[0], version=V)
    assert status == 200 and sid in [s['id'] for s in filtered['servers']]
    status, _h, updated = aio.request('PUT', '/servers/%s' % sid,
                                      {'server': {'name': 'renamed'}}, version=V)
    assert status == 200 and updated['server']['trusted_image_certificates'] == IDS

    # Rebuild without the key keeps them; new ids replace them; null clears them.
    def rebuild(**extra):
        status, _h, body = aio.request('POST', '/servers/%s/action' % sid, {'rebuild': dict(
            {'imageRef': aio.image_id}, **extra)}, version=V)
        assert status == 202, body
        aio.wait_for_status(sid, ['ACTIVE'], version=V)
        return body['server']['trusted_image_certificates']

    assert rebuild() == IDS
    assert rebuild(trusted_image_certificates=IDS[1:]) == IDS[1:]
    assert aio.request('GET', '/servers/%s' % sid, version=V)[2]['server'][
        'trusted_image_certificates'] == IDS[1:]
    assert rebuild(trusted_image_certificates=None) is None
    assert aio.request('GET', '/servers/%s' % sid, version=V)[2]['server'][
        'trusted_image_certificates'] is None


    _delete(aio, sid)


def _delete(aio, sid):
    assert aio.request('DELETE', '/servers/%s' % sid)[0] == 204
    aio.wait_for_status(sid, ['DELETED'])


def test_invalid_rebuild_certs_are_400_and_no_certs_is_null(aio):
    sid = _boot(aio, _ABSENT)
    assert aio.wait_for_status(sid, ['ACTIVE'], version=V)[
        'trusted_image_certificates'] is None
    for certs in ([], [''], ['a', 'a'], 'abc', ['x%d' % i for i in range(51)]):
        status, _h, body = aio.request('POST', '/servers/%s/action' % sid, {'rebuild': {
            'imageRef': aio.image_id, 'trusted_image_certificates': certs}}, version=V)
        assert status == 400, body
        assert 'trusted_image_certificates' in body['badRequest']['message']
    _delete(aio, sid)


@pytest.fixture(scope='module')
def aio_defaults(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('trusted_defaults')
    # Validation on, but nothing signed is booted here: only the recorded ids matter.
    running = fixtures.RunningAio(tmp, extra={
        ('glance', 'verify_glance_signatures'): True,
        ('glance', 'enable_certificate_validation'): True,
        ('glance', 'default_trusted_certificate_ids'): IDS})
    running.image_id = running.upload_image(fixtures.tiny_disk(tmp / 'disk.img'))
    yield running
    running.stop()


def test_defaults_apply_only_when_none_asked(aio_defaults):
    aio = aio_defaults
    status, _h, body = _create(aio, _ABSENT)
    assert status == 202, body
    sid = body['server']['id']
    _s, _h, shown = aio.request('GET', '/servers/%s' % sid, version=V)
    assert shown['server']['trusted_image_certificates'] == IDS
    status, _h, body = _create(aio, IDS[:1])
    _s, _h, shown = aio.request('GET', '/servers/%s' % body['server']['id'], version=V)
    assert shown['server']['trusted_image_certificates'] == IDS[:1]

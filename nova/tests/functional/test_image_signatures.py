"""Signed images on libvirt test:///default: [glance] verify_glance_signatures and certificates."""

import pathlib
import time

import pytest

from nova.tests.fixtures import signing
from nova.tests.functional import fixtures
from nova.virt.libvirt import imagebackend

V = '2.63'


def _image_data(tmp, name):
    # Distinct bytes per image, so each has its own cache entry and signature.
    path = pathlib.Path(fixtures.tiny_disk(tmp / (name + '.img')))
    with open(path, 'r+b') as handle:
        handle.write(name.encode())
    return path


@pytest.fixture(scope='module')
def signed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('signed')
    authority = signing.Authority(str(tmp / 'certs'))
    other = signing.Authority(str(tmp / 'certs'), name='other')
    return tmp, authority, other


def _aio(tmp, authority, verify, validate=True):
    return fixtures.RunningAio(tmp, extra={
        ('glance', 'verify_glance_signatures'): verify,
        ('glance', 'enable_certificate_validation'): validate,
        ('key_manager', 'certificates_dir'): authority.directory})


@pytest.fixture(scope='module')
def aio_on(signed, tmp_path_factory):
    _tmp, authority, _other = signed
    running = _aio(tmp_path_factory.mktemp('verify_on'), authority, True)
    yield running
    running.stop()


def _upload(aio, tmp, name, props):
    path = _image_data(tmp, name)
    return aio.upload_image(str(path), name=name, **props), path.read_bytes()


def _signed_image(aio, tmp, authority, name):
    path = _image_data(tmp, name)
    return aio.upload_image(str(path), name=name, **authority.properties(path.read_bytes()))


def _boot(aio, image_id, certs=None):
    server = {'name': 'sig', 'imageRef': image_id, 'flavorRef': '1', 'networks': 'none'}
    if certs is not None:
        server['trusted_image_certificates'] = certs
    status, _h, body = aio.request('POST', '/servers', {'server': server}, version=V)
    assert status == 202, body
    return body['server']['id']


def _wait_error(aio, sid, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        server = aio.request('GET', '/servers/%s' % sid, version=V)[2]['server']
        if server['status'] == 'ERROR':
            return server
        assert server['status'] == 'BUILD', server
        time.sleep(0.05)
    raise AssertionError('server %s never went to ERROR' % sid)


def _cached(aio, image_id):
    return list(pathlib.Path(aio.conf.state_path).rglob(
        imagebackend.cache_name(image_id) + '*'))


def _delete(aio, sid, timeout=60):
    assert aio.request('DELETE', '/servers/%s' % sid)[0] == 204
    deadline = time.monotonic() + timeout
    while aio.request('GET', '/servers/%s' % sid)[0] != 404:
        assert time.monotonic() < deadline, 'server %s was not deleted' % sid
        time.sleep(0.05)


def test_good_signature_from_trusted_ca_boots(aio_on, signed):
    tmp, authority, _other = signed
    image_id = _signed_image(aio_on, tmp, authority, 'good')
    sid = _boot(aio_on, image_id, [authority.ca_id])
    server = aio_on.wait_for_status(sid, ['ACTIVE'], version=V)
    assert server['trusted_image_certificates'] == [authority.ca_id]
    assert _cached(aio_on, image_id)
    # A snapshot does not inherit a signature that does not sign its data.
    status, _h, body = aio_on.request('POST', '/servers/%s/action' % sid,
                                      {'createImage': {'name': 'snap'}}, version='2.45')
    assert status == 202, body
    _s, _h, snap = aio_on.request('GET', '/v2/images/%s' % body['image_id'],
                                  url=aio_on.image_url)
    assert snap['base_image_ref'] == image_id
    assert not [k for k in snap if k.startswith('img_signature')], snap
    aio_on.wait_for_status(sid, ['ACTIVE'], version=V)
    _delete(aio_on, sid)


def test_tampered_data_fails_the_build_and_caches_nothing(aio_on, signed):
    tmp, authority, _other = signed
    props = authority.properties(b'not the uploaded bytes')
    image_id, _data = _upload(aio_on, tmp, 'tampered', props)
    sid = _boot(aio_on, image_id, [authority.ca_id])
    server = _wait_error(aio_on, sid)
    assert server['fault']['message'].startswith(
        'Signature verification for the image failed'), server['fault']
    assert _cached(aio_on, image_id) == []
    _delete(aio_on, sid)


def test_untrusted_certificate_fails_the_build(aio_on, signed):
    tmp, authority, other = signed
    image_id = _signed_image(aio_on, tmp, authority, 'untrusted')
    sid = _boot(aio_on, image_id, [other.ca_id])
    server = _wait_error(aio_on, sid)
    assert server['fault']['message'].startswith(
        'Image certificate validation failed for certificate: %s' % authority.cert_id)
    assert _cached(aio_on, image_id) == []
    _delete(aio_on, sid)
    # No trusted certificates at all (none asked, no defaults): validation fails too.
    sid = _boot(aio_on, image_id)
    assert 'no trusted image certificates' in _wait_error(aio_on, sid)['fault']['message']
    _delete(aio_on, sid)


def test_unsigned_image_fails_the_build(aio_on, signed):
    tmp, authority, _other = signed
    image_id, _data = _upload(aio_on, tmp, 'unsigned', {})
    sid = _boot(aio_on, image_id, [authority.ca_id])
    fault = _wait_error(aio_on, sid)['fault']
    assert 'Missing property: img_signature' in fault['message']
    assert _cached(aio_on, image_id) == []
    _delete(aio_on, sid)


def test_verification_off_boots_without_checks(signed, tmp_path_factory):
    tmp, authority, other = signed
    aio = _aio(tmp_path_factory.mktemp('verify_off'), authority, False)
    try:
        image_id, _data = _upload(aio, tmp, 'off', authority.properties(b'other bytes'))
        sid = _boot(aio, image_id, [other.ca_id])
        aio.wait_for_status(sid, ['ACTIVE'], version=V)
        _delete(aio, sid)
    finally:
        aio.stop()


def test_signature_only_without_certificate_validation(signed, tmp_path_factory):
    tmp, authority, other = signed
    aio = _aio(tmp_path_factory.mktemp('verify_sig_only'), authority, True, validate=False)
    try:
        # Any readable signing certificate will do, trusted or not.
        sid = _boot(aio, _signed_image(aio, tmp, authority, 'sigonly'), [other.ca_id])
        aio.wait_for_status(sid, ['ACTIVE'], version=V)
        _delete(aio, sid)
        image_id, _data = _upload(aio, tmp, 'sigonly-bad', authority.properties(b'x'))
        assert 'Signature verification' in _wait_error(aio, _boot(aio, image_id))[
            'fault']['message']
    finally:
        aio.stop()

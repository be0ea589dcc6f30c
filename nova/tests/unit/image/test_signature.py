"""Image signature verification and certificate chains, with certificates made in the test."""

import datetime

import pytest

from nova import exception, keymgr
from nova.image import signature
from nova.tests.fixtures import signing

DATA = b'tiny image data\n' * 1000


@pytest.fixture(scope='module')
def authority(tmp_path_factory):
    return signing.Authority(str(tmp_path_factory.mktemp('certs')))


def _write(tmp_path, data=DATA):
    path = tmp_path / 'image.part'
    path.write_bytes(data)
    return str(path)


def _verify(authority, tmp_path, props, data=DATA, **kwargs):
    return signature.verify_file(keymgr.FileKeyManager(authority.directory), None,
                                 {'id': 'img', 'properties': props},
                                 _write(tmp_path, data), **kwargs)


@pytest.mark.parametrize('kind', ['rsa', 'ecc', 'dsa'])
@pytest.mark.parametrize('hash_method', ['SHA-256', 'SHA-512'])
def test_good_signatures_verify(tmp_path, kind, hash_method):
    authority = signing.Authority(str(tmp_path / 'certs'), kind=kind)
    _verify(authority, tmp_path, authority.properties(DATA, hash_method))
    _verify(authority, tmp_path, authority.properties(DATA, hash_method),
            trusted_ids=[authority.ca_id], validate_certs=True)


def test_tampered_data_fails(authority, tmp_path):
    with pytest.raises(exception.SignatureVerificationError) as exc:
        _verify(authority, tmp_path, authority.properties(DATA), data=DATA + b'x')
    assert exc.value.format_message().startswith(
        'Signature verification for the image failed')


def test_flat_v2_image_properties_are_read(authority, tmp_path):
    image = dict(authority.properties(DATA), id='img')
    signature.verify_file(keymgr.FileKeyManager(authority.directory), None, image,
                          _write(tmp_path))


@pytest.mark.parametrize('change,needle', [
    ({'img_signature': None}, 'Missing property: img_signature'),
    ({'img_signature_hash_method': 'MD5'}, 'Invalid signature hash method: MD5'),
    ({'img_signature_key_type': 'ROT13'}, 'Invalid signature key type: ROT13'),
    ({'img_signature_key_type': 'ECC_SECP521R1'}, 'Invalid public key type'),
    ({'img_signature': '***'}, 'base64'),
    ({'img_signature_certificate_uuid': 'no-such-cert'}, 'Unable to retrieve certificate'),
    ({'img_signature_certificate_uuid': '../../etc/passwd'}, 'Unable to retrieve certificate'),
])
def test_bad_properties_fail(authority, tmp_path, change, needle):
    props = authority.properties(DATA)
    props.update(change)
    props = {k: v for k, v in props.items() if v is not None}
    with pytest.raises(exception.SignatureVerificationError) as exc:
        _verify(authority, tmp_path, props)
    assert needle in exc.value.format_message()


def test_untrusted_certificate_fails_validation(authority, tmp_path):
    other = signing.Authority(authority.directory, name='other')
    props = authority.properties(DATA)
    for trusted in ([other.ca_id], [other.cert_id], []):
        with pytest.raises(exception.CertificateValidationFailed) as exc:
            _verify(authority, tmp_path, props, trusted_ids=trusted, validate_certs=True)
        assert authority.cert_id in exc.value.format_message()
    # Without certificate validation any readable certificate will do.
    _verify(authority, tmp_path, props, trusted_ids=[other.ca_id])


def test_trusting_the_signer_itself_or_its_ca_passes(authority, tmp_path):
    props = authority.properties(DATA)
    for trusted in ([authority.cert_id], [authority.ca_id], [authority.ca_id, authority.cert_id]):
        _verify(authority, tmp_path, props, trusted_ids=trusted, validate_certs=True)


def test_unknown_trusted_id_fails_validation(authority, tmp_path):
    with pytest.raises(exception.CertificateValidationFailed):
        _verify(authority, tmp_path, authority.properties(DATA),
                trusted_ids=['missing', authority.ca_id], validate_certs=True)


def test_a_signer_that_is_no_ca_does_not_vouch(authority, tmp_path):
    # A leaf issuing another certificate: its subject matches but it is no CA.
    key = signing.new_key()
    leaf = signing.certificate('sub signer', key, authority.cert, authority.key)
    leaf_id = authority.store(leaf)
    props = {'img_signature': signing.sign(key, DATA), 'img_signature_hash_method': 'SHA-256',
             'img_signature_key_type': 'RSA-PSS', 'img_signature_certificate_uuid': leaf_id}
    _verify(authority, tmp_path, props)
    with pytest.raises(exception.CertificateValidationFailed):
        _verify(authority, tmp_path, props, trusted_ids=[authority.cert_id],
                validate_certs=True)


def test_expired_signing_certificate_fails(authority, tmp_path):
    key = signing.new_key()
    old = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=60)
    cert = signing.certificate('old', key, authority.ca_cert, authority.ca_key, days=30,
                               not_before=old)
    cert_id = authority.store(cert)
    props = {'img_signature': signing.sign(key, DATA), 'img_signature_hash_method': 'SHA-256',
             'img_signature_key_type': 'RSA-PSS', 'img_signature_certificate_uuid': cert_id}
    with pytest.raises(exception.SignatureVerificationError) as exc:
        _verify(authority, tmp_path, props)
    assert 'expired' in exc.value.format_message()

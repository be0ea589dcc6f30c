"""Key pair generation, import validation and fingerprints."""

import base64
import hashlib

import pytest
from cryptography import x509

from nova import crypto, exception


def test_generated_ssh_key_fingerprint_is_md5_of_the_blob():
    private, public, fingerprint = crypto.generate_ssh()
    assert private.startswith('-----BEGIN RSA PRIVATE KEY-----')
    assert public.startswith('ssh-rsa ') and public.endswith(' Generated-by-Nova')
    digest = hashlib.md5(base64.b64decode(public.split()[1])).hexdigest()
    assert fingerprint.replace(':', '') == digest
    assert crypto.fingerprint('ssh', public) == fingerprint


def test_generated_x509_is_a_self_signed_certificate():
    private, pem, fingerprint = crypto.generate_x509('alice')
    cert = x509.load_pem_x509_certificate(pem.encode())
    assert cert.issuer == cert.subject
    assert 'PRIVATE KEY' in private
    assert len(fingerprint.split(':')) == 20
    assert crypto.fingerprint('x509', pem) == fingerprint


@pytest.mark.parametrize('key', ['ssh-rsa JUNK nova@ubuntu', ' ', '',
                                 'ssh-rsa ' + 'A' * 2048 + ' openstack@ubuntu'])
def test_bad_public_keys_are_invalid(key):
    with pytest.raises(exception.InvalidKeypair):
        crypto.ssh_fingerprint(key)


def test_bad_certificate_is_invalid():
    with pytest.raises(exception.InvalidKeypair):
        crypto.x509_fingerprint('not a certificate')

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


def test_imported_rsa_key_fingerprint():
    # The key tempest imports in test_keypair_create_with_pub_key.
    key = ('ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCsNe3/1ILNCqFyfYWDeTKLD6jEXC2OQHLmietMWW+/v'
           'daZq7KZEwO0jhglaFjU1mpqq4Gz5RX156sCTNM9vRbwKAxfsdF9laBYVsex3m3Wmui3uYrKyumsoJn2g9'
           'GNnG1PI1mrVjZ61i0GY3khna+wzlTpCCmy5HNlrmbj3XLqBUpipTOXmsnr4sChzC53KCd8LXuwc1i/CZP'
           'vF+3XipvAgFSE53pCtLOeB1kYMOBaiUPLQTWXR3JpckqFIQwhIH0zoHlJvZE8hh90XcPojYN56tI0OlrG'
           'qojbediJYD0rUsJu4weZpbn8vilb3JuDY+jwssnSA8wzBx3A/8y9Pp1B nova@ubuntu')
    assert crypto.ssh_fingerprint(key) == '61:5f:fe:c7:e0:fd:d7:4a:2b:52:6e:a6:f5:bf:da:27'

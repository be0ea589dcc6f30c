"""Key pair generation, import validation and fingerprints."""

import base64
import hashlib
import json
import subprocess
import sys
import warnings

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

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


# The pure-Python check of plain imported keys (crypto._plain_ssh_blob)
# against cryptography's load_ssh_public_key, which decides everything the
# check does not accept: it must never accept a key cryptography refuses, and
# must give the same blob (so the same fingerprint) for one it accepts.

def _line(key_type, *fields):
    blob = b''.join(len(f).to_bytes(4, 'big') + f for f in (key_type,) + fields)
    return (key_type + b' ' + base64.b64encode(blob) + b' user@host').decode()


def _mpint(value, pad=0):
    return b'\0' * pad + (value.to_bytes((value.bit_length() + 8) // 8, 'big') if value else b'')


def _openssh(key):
    return key.public_bytes(serialization.Encoding.OpenSSH,
                            serialization.PublicFormat.OpenSSH).decode()


def _keys():
    """(name, public key line) of valid and corrupt keys of each kind."""
    yield 'ed25519', _openssh(ed25519.Ed25519PrivateKey.generate().public_key())
    yield 'ed25519 any 32 bytes', _line(b'ssh-ed25519', b'\xff' * 32)
    for size in (0, 31, 33):
        yield 'ed25519 %d bytes' % size, _line(b'ssh-ed25519', b'\1' * size)
    yield 'ed25519 trailing', _line(b'ssh-ed25519', b'\1' * 32, b'')
    for curve, name in ((ec.SECP256R1(), b'nistp256'), (ec.SECP384R1(), b'nistp384'),
                        (ec.SECP521R1(), b'nistp521')):
        key = ec.generate_private_key(curve).public_key()
        point = key.public_bytes(serialization.Encoding.X962,
                                 serialization.PublicFormat.UncompressedPoint)
        key_type = b'ecdsa-sha2-' + name
        yield name.decode(), _openssh(key)
        yield name.decode() + ' off the curve', _line(key_type, name, point[:-1] + bytes(
            [point[-1] ^ 1]))
        yield name.decode() + ' compressed', _line(key_type, name, key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint))
        yield name.decode() + ' zero point', _line(key_type, name, b'\4' + b'\0' * (
            len(point) - 1))
        yield name.decode() + ' short point', _line(key_type, name, point[:-1])
        yield name.decode() + ' trailing', _line(key_type, name, point, b'')
        yield name.decode() + ' other curve name', _line(b'ecdsa-sha2-nistp256', name, point)
        prime = crypto._CURVES[name][0].to_bytes((len(point) - 1) // 2, 'big')
        yield name.decode() + ' x = p', _line(key_type, name, b'\4' + prime + prime)
    for bits in (1024, 2048):
        numbers = rsa.generate_private_key(65537, bits).public_key().public_numbers()
        e, n = numbers.e, numbers.n
        yield 'rsa %d' % bits, _openssh(numbers.public_key())
        yield 'rsa padded mpints', _line(b'ssh-rsa', _mpint(e, 2), _mpint(n, 3))
        yield 'rsa e = 3', _line(b'ssh-rsa', _mpint(3), _mpint(n))
        yield 'rsa e = n - 2', _line(b'ssh-rsa', _mpint(n - 2), _mpint(n))
        yield 'rsa even e', _line(b'ssh-rsa', _mpint(65536), _mpint(n))
        yield 'rsa e = 1', _line(b'ssh-rsa', _mpint(1), _mpint(n))
        yield 'rsa e > n', _line(b'ssh-rsa', _mpint(n + 2), _mpint(n))
        yield 'rsa even n', _line(b'ssh-rsa', _mpint(e), _mpint(n + 1))
        yield 'rsa negative n', _line(b'ssh-rsa', _mpint(e), b'\x80' + _mpint(n)[1:])
        yield 'rsa trailing', _line(b'ssh-rsa', _mpint(e), _mpint(n), b'')
        yield 'rsa type mismatch', _line(b'ssh-rsa', _mpint(e), _mpint(n)).replace(
            'ssh-rsa', 'ssh-ed25519', 1)
    for bits in (768, 16385):
        yield 'rsa %d bits' % bits, _line(b'ssh-rsa', _mpint(65537), _mpint(
            (1 << (bits - 1)) | 1))
    ed = _openssh(ed25519.Ed25519PrivateKey.generate().public_key()).split()[1]
    yield 'tab separated', 'ssh-ed25519\t' + ed
    yield 'junk after the base64', 'ssh-ed25519 ' + ed + '**'
    yield 'no comment', 'ssh-ed25519 ' + ed
    for junk in ('ssh-ed25519', 'ssh-ed25519 !!!!', '\u00e9 x', 'ssh-rsa JUNK', ''):
        yield 'junk %r' % junk, junk


def _by_cryptography(key):
    try:
        return crypto._cryptography_ssh_blob(key)
    except exception.InvalidKeypair:
        return 'invalid'
    except Exception as exc:  # noqa: BLE001 - e.g. UnsupportedAlgorithm: an unknown type
        return type(exc).__name__


_KEYS = list(_keys())


# Ids by name only: the keys are made afresh in each test worker.
@pytest.mark.parametrize('name,key', _KEYS, ids=[name for name, _key in _KEYS])
def test_plain_key_check_agrees_with_cryptography(name, key):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        expected = _by_cryptography(key)
    ours = crypto._plain_ssh_blob(key)
    assert ours is None or ours == expected, name
    if name in ('ed25519', 'ed25519 any 32 bytes', 'nistp256', 'nistp384', 'nistp521',
                'rsa 1024', 'rsa 2048', 'rsa padded mpints', 'rsa e = 3', 'tab separated',
                'no comment'):
        assert ours is not None, name     # taken without cryptography


@pytest.mark.parametrize('key', [
    # Security keys, DSA, a certificate: cryptography's own loading.
    'sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAIKzLyC/'
    'gOjRVydOfu9itntHqcj2gfKPqGUxJ0MNbHd19AAAABHNzaDo= user@host',
    'ssh-dss AAAAB3NzaC1kc3MAAACBAP9m user@host'])
def test_other_key_types_left_to_cryptography(key):
    assert crypto._plain_ssh_blob(key) is None


def test_imported_plain_keys_do_not_import_cryptography():
    # cryptography with OpenSSL and bcrypt is about 9 MB of the all-in-one's
    # resident memory; importing an RSA, ECDSA or Ed25519 key needs none of it.
    keys = [_openssh(ed25519.Ed25519PrivateKey.generate().public_key()),
            _openssh(ec.generate_private_key(ec.SECP384R1()).public_key()),
            _openssh(rsa.generate_private_key(65537, 2048).public_key())]
    expected = [crypto.ssh_fingerprint(key) for key in keys]
    code = ('import json, sys; from nova import crypto; '
            'keys = json.loads(sys.argv[1]); '
            'print(json.dumps([[crypto.ssh_fingerprint(k) for k in keys], '
            'sorted({m.split(".")[0] for m in sys.modules} & {"cryptography", "bcrypt"})]))')
    out = subprocess.run([sys.executable, '-c', code, json.dumps(keys)], capture_output=True,
                         text=True, check=True)
    assert json.loads(out.stdout) == [expected, []], out.stderr

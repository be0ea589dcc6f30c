"""Key pair cryptography: generate SSH and x509 keys, validate imports, fingerprints."""

import base64
import binascii
import datetime
import hashlib
import re

from nova import exception

# cryptography (about 9 MB resident with its Rust bindings, OpenSSL's
# libcrypto and bcrypt, which its SSH module imports) is imported only when a
# key pair is generated, a certificate is read, or an imported SSH key is not
# one that _plain_ssh_blob accepts: the services start without it, and the
# usual imported keys (RSA, ECDSA, Ed25519) never load it.

# What cryptography's load_ssh_public_key matches: the type, then the base64.
_SSH_LINE = re.compile(rb'\A(\S+)[ \t]+(\S+)')
# NIST curves (a = -3): field prime, b, the coordinate length in bytes.
_CURVES = {
    b'nistp256': (2 ** 256 - 2 ** 224 + 2 ** 192 + 2 ** 96 - 1,
                  0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b, 32),
    b'nistp384': (2 ** 384 - 2 ** 128 - 2 ** 96 + 2 ** 32 - 1,
                  int('b3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875a'
                      'c656398d8a2ed19d2a85c8edd3ec2aef', 16), 48),
    b'nistp521': (2 ** 521 - 1,
                  int('0051953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef1'
                      '09e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b50'
                      '3f00', 16), 66),
}
# RSA moduli this check takes itself; others go to cryptography.
_RSA_BITS = (1024, 16384)


def _colon_hex(digest):
    return ':'.join(digest[i:i + 2] for i in range(0, len(digest), 2))


def _sshstr(data):
    """(bytes with a u32 length prefix, the rest); ValueError when short."""
    if len(data) < 4:
        raise ValueError('short')
    size = int.from_bytes(data[:4], 'big')
    if size > len(data) - 4:
        raise ValueError('short')
    return data[4:4 + size], data[4 + size:]


def _put_sshstr(value):
    return len(value).to_bytes(4, 'big') + value


def _put_mpint(value):
    return _put_sshstr(value.to_bytes((value.bit_length() + 8) // 8, 'big') if value else b'')


def _plain_ssh_blob(public_key):
    """The key blob cryptography would write back for a plain RSA, ECDSA or
    Ed25519 public key it accepts, or None: cryptography then decides.

    Accepts only what cryptography's load_ssh_public_key accepts (the same
    line format and base64 decoding, the RSA exponent and modulus checks,
    the point on its curve), never certificates, security keys or DSA; the
    unit tests compare both on valid and corrupt keys.
    """
    try:
        match = _SSH_LINE.match(public_key.strip().encode('utf-8'))
        if not match:
            return None
        key_type = match.group(1)
        data = binascii.a2b_base64(match.group(2))
        inner, rest = _sshstr(data)
        if inner != key_type:
            return None
        if key_type == b'ssh-ed25519':
            point, rest = _sshstr(rest)
            if len(point) != 32 or rest:
                return None
            return _put_sshstr(key_type) + _put_sshstr(point)
        if key_type == b'ssh-rsa':
            raw_e, rest = _sshstr(rest)
            raw_n, rest = _sshstr(rest)
            if rest or (raw_e and raw_e[0] > 0x7f) or (raw_n and raw_n[0] > 0x7f):
                return None
            e, n = int.from_bytes(raw_e, 'big'), int.from_bytes(raw_n, 'big')
            if not (3 <= e < n and e & 1 and n & 1
                    and _RSA_BITS[0] <= n.bit_length() <= _RSA_BITS[1]):
                return None
            return _put_sshstr(key_type) + _put_mpint(e) + _put_mpint(n)
        if key_type.startswith(b'ecdsa-sha2-'):
            curve, rest = _sshstr(rest)
            point, rest = _sshstr(rest)
            if key_type != b'ecdsa-sha2-' + curve or curve not in _CURVES or rest:
                return None
            p, b, size = _CURVES[curve]
            if len(point) != 1 + 2 * size or point[0] != 4:
                return None
            x = int.from_bytes(point[1:1 + size], 'big')
            y = int.from_bytes(point[1 + size:], 'big')
            if x >= p or y >= p or (y * y - (x * x * x - 3 * x + b)) % p:
                return None
            return _put_sshstr(key_type) + _put_sshstr(curve) + _put_sshstr(point)
    except (ValueError, binascii.Error):
        return None
    return None


def ssh_fingerprint(public_key):
    """MD5 of the key blob, colon separated, as upstream shows it; 400 if not a key."""
    blob = _plain_ssh_blob(public_key) if isinstance(public_key, str) else None
    if blob is None:
        blob = _cryptography_ssh_blob(public_key)
    return _colon_hex(hashlib.md5(blob, usedforsecurity=False).hexdigest())


def _cryptography_ssh_blob(public_key):
    from cryptography.hazmat.primitives import serialization
    try:
        key = serialization.load_ssh_public_key(public_key.strip().encode('utf-8'))
        blob = key.public_bytes(serialization.Encoding.OpenSSH,
                                serialization.PublicFormat.OpenSSH).split()[1]
    except (ValueError, TypeError, IndexError, UnicodeError, NotImplementedError):
        raise exception.InvalidKeypair(reason='failed to generate fingerprint')
    return base64.b64decode(blob)


def x509_fingerprint(pem):
    """SHA-1 of the certificate's DER bytes, colon separated."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    try:
        cert = x509.load_pem_x509_certificate(pem.strip().encode('utf-8'))
    except (ValueError, TypeError, UnicodeError):
        raise exception.InvalidKeypair(reason='failed to generate X509 fingerprint. Error '
                                              'message: the certificate could not be loaded')
    return _colon_hex(cert.fingerprint(hashes.SHA1()).hex())


def fingerprint(key_type, public_key):
    return x509_fingerprint(public_key) if key_type == 'x509' else ssh_fingerprint(public_key)


def generate_ssh(bits=2048):
    """(private PEM, 'ssh-rsa ... Generated-by-Nova', fingerprint)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    private = key.private_bytes(serialization.Encoding.PEM,
                                serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption()).decode('ascii')
    public = key.public_key().public_bytes(serialization.Encoding.OpenSSH,
                                           serialization.PublicFormat.OpenSSH).decode('ascii')
    public += ' Generated-by-Nova'
    return private, public, ssh_fingerprint(public)


def generate_x509(user_id, bits=2048, days=3650):
    """(private PEM, self-signed certificate PEM, fingerprint) for WinRM-style login."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import NameOID
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, user_id or 'nova')])
    now = datetime.datetime.now(datetime.timezone.utc)
    # The user principal name WinRM maps the certificate to: a DER UTF8String.
    principal = ('%s@localhost' % (user_id or 'nova')).encode('utf-8')[:127]
    upn = x509.OtherName(x509.ObjectIdentifier('1.3.6.1.4.1.311.20.2.3'),
                         b'\x0c' + bytes([len(principal)]) + principal)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now).not_valid_after(now + datetime.timedelta(days=days))
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.CLIENT_AUTH]),
                           critical=False)
            .add_extension(x509.SubjectAlternativeName([upn]), critical=False)
            .sign(key, hashes.SHA256()))
    private = key.private_bytes(serialization.Encoding.PEM,
                                serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode('ascii')
    pem = cert.public_bytes(serialization.Encoding.PEM).decode('ascii')
    return private, pem, x509_fingerprint(pem)

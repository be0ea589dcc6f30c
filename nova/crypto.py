"""Key pair cryptography: generate SSH and x509 keys, validate imports, fingerprints."""

import base64
import datetime
import hashlib

from nova import exception

# cryptography (about 8 MB resident with its Rust bindings) is imported only
# when a key pair is made or checked: the services start without it.


def _colon_hex(digest):
    return ':'.join(digest[i:i + 2] for i in range(0, len(digest), 2))


def ssh_fingerprint(public_key):
    """MD5 of the key blob, colon separated, as upstream shows it; 400 if not a key."""
    from cryptography.hazmat.primitives import serialization
    try:
        key = serialization.load_ssh_public_key(public_key.strip().encode('utf-8'))
        blob = key.public_bytes(serialization.Encoding.OpenSSH,
                                serialization.PublicFormat.OpenSSH).split()[1]
    except (ValueError, TypeError, IndexError, UnicodeError, NotImplementedError):
        raise exception.InvalidKeypair(reason='failed to generate fingerprint')
    return _colon_hex(hashlib.md5(base64.b64decode(blob), usedforsecurity=False).hexdigest())


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

"""Image signature verification and signing-certificate validation (as Glance signs)."""

import base64
import binascii
import datetime

from cryptography import exceptions as crypto_exceptions
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import dsa, ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric import utils as asym_utils

from nova import exception

REQUIRED = ('img_signature', 'img_signature_hash_method', 'img_signature_key_type',
            'img_signature_certificate_uuid')

HASH_METHODS = {'SHA-224': hashes.SHA224, 'SHA-256': hashes.SHA256,
                'SHA-384': hashes.SHA384, 'SHA-512': hashes.SHA512}

# Key type -> (public key class, curve name or None). Binary curves (sect*) verify
# only where the installed cryptography still offers them.
KEY_TYPES = {
    'RSA-PSS': (rsa.RSAPublicKey, None),
    'DSA': (dsa.DSAPublicKey, None),
    'ECC_SECP384R1': (ec.EllipticCurvePublicKey, 'secp384r1'),
    'ECC_SECP521R1': (ec.EllipticCurvePublicKey, 'secp521r1'),
    'ECC_SECT409K1': (ec.EllipticCurvePublicKey, 'sect409k1'),
    'ECC_SECT409R1': (ec.EllipticCurvePublicKey, 'sect409r1'),
    'ECC_SECT571K1': (ec.EllipticCurvePublicKey, 'sect571k1'),
    'ECC_SECT571R1': (ec.EllipticCurvePublicKey, 'sect571r1'),
}

# Longest issuer chain walked through the trusted certificates.
MAX_CHAIN = 10

CHUNK = 1024 * 1024


def _fail(reason):
    return exception.SignatureVerificationError(reason=reason)


def signature_properties(image):
    """(signature bytes, hash class, key type, certificate id) from an image's properties."""
    props = dict(image)
    props.update(image.get('properties') or {})
    missing = [key for key in REQUIRED if not props.get(key)]
    if missing:
        raise _fail('Required image properties for signature verification do not exist. '
                    'Cannot verify signature. Missing property: %s' % ', '.join(missing))
    method = props['img_signature_hash_method']
    if method not in HASH_METHODS:
        raise _fail('Invalid signature hash method: %s' % method)
    key_type = props['img_signature_key_type']
    if key_type not in KEY_TYPES:
        raise _fail('Invalid signature key type: %s' % key_type)
    try:
        signature = base64.b64decode(props['img_signature'], validate=True)
    except (binascii.Error, ValueError, TypeError):
        raise _fail('The signature data was not properly encoded using base64')
    return signature, HASH_METHODS[method], key_type, props['img_signature_certificate_uuid']


def _check_dates(cert, cert_id, error):
    now = datetime.datetime.now(datetime.timezone.utc)
    if cert.not_valid_before_utc > now:
        raise error('Certificate %s is not valid before %s.'
                    % (cert_id, cert.not_valid_before_utc.isoformat()))
    if cert.not_valid_after_utc < now:
        raise error('Certificate %s expired at %s.'
                    % (cert_id, cert.not_valid_after_utc.isoformat()))


def _is_ca(cert):
    try:
        if not cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca:
            return False
    except x509.ExtensionNotFound:
        return False
    try:
        usage = cert.extensions.get_extension_for_class(x509.KeyUsage).value
    except x509.ExtensionNotFound:
        return True
    return usage.key_cert_sign


def _signed_by(cert, issuer):
    try:
        cert.verify_directly_issued_by(issuer)
    except (ValueError, TypeError, crypto_exceptions.InvalidSignature):
        return False
    return True


def validate_certificate(cert, cert_id, trusted):
    """The signing certificate must be trusted or chain to a trusted CA.

    ``trusted`` maps id -> certificate. Raises CertificateValidationFailed.
    """
    def error(reason):
        return exception.CertificateValidationFailed(cert_uuid=cert_id, reason=reason)

    if not trusted:
        raise error('Certificate validation was requested, but no trusted image '
                    'certificates were provided or configured.')
    for trusted_id, trusted_cert in trusted.items():
        _check_dates(trusted_cert, trusted_id, error)
    current = cert
    for _depth in range(MAX_CHAIN):
        if any(current == t for t in trusted.values()):
            return
        issuer = next((t for t in trusted.values()
                       if t.subject == current.issuer and _is_ca(t)
                       and _signed_by(current, t)), None)
        if issuer is None:
            break
        current = issuer
    raise error('The certificate does not chain to any of the trusted certificates.')


def _check_key(public_key, key_type):
    key_class, curve = KEY_TYPES[key_type]
    if not isinstance(public_key, key_class) or (
            curve is not None and public_key.curve.name != curve):
        raise _fail('Invalid public key type for signature key type: %s' % key_type)


def _verify(public_key, key_type, signature, digest, hash_class):
    prehashed = asym_utils.Prehashed(hash_class())
    if key_type == 'RSA-PSS':
        public_key.verify(signature, digest,
                          padding.PSS(mgf=padding.MGF1(hash_class()),
                                      salt_length=padding.PSS.MAX_LENGTH), prehashed)
    elif key_type == 'DSA':
        public_key.verify(signature, digest, prehashed)
    else:
        public_key.verify(signature, digest, ec.ECDSA(prehashed))


def verify_file(key_manager, context, image, path, trusted_ids=None,
                validate_certs=False):
    """Verify the image data at ``path`` against the image's signature properties.

    With ``validate_certs`` the signing certificate must also chain to one of
    ``trusted_ids`` (key manager ids). Raises SignatureVerificationError or
    CertificateValidationFailed; returns None when the data verifies.
    """
    signature, hash_class, key_type, cert_id = signature_properties(image)
    try:
        cert = key_manager.certificate(context, cert_id)
    except exception.NovaException as exc:
        raise _fail(exc.format_message())
    _check_dates(cert, cert_id, _fail)
    if validate_certs:
        trusted = {}
        for trusted_id in trusted_ids or ():
            try:
                trusted[trusted_id] = key_manager.certificate(context, trusted_id)
            except exception.NovaException as exc:
                raise exception.CertificateValidationFailed(cert_uuid=cert_id,
                                                            reason=exc.format_message())
        validate_certificate(cert, cert_id, trusted)
    public_key = cert.public_key()
    _check_key(public_key, key_type)
    hasher = hashes.Hash(hash_class())
    with open(path, 'rb') as handle:
        for chunk in iter(lambda: handle.read(CHUNK), b''):
            hasher.update(chunk)
    try:
        _verify(public_key, key_type, signature, hasher.finalize(), hash_class)
    except crypto_exceptions.InvalidSignature:
        raise _fail('the image data does not match its signature')

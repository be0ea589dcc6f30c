"""Key manager: where image signing and trusted certificates come from (file backend)."""

import os
import re

from cryptography import x509

from nova import exception

# Ids become file names: no separators, no leading dot.
_SAFE_ID = re.compile(r'^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,254}$')


class CertificateNotFound(exception.NovaException):
    msg_fmt = 'Unable to retrieve certificate with ID %(cert_id)s'


class FileKeyManager:
    """PEM certificates in ``[key_manager] certificates_dir``, named ``<id>.pem``."""

    def __init__(self, directory):
        self.directory = directory

    def certificate(self, context, cert_id):
        """The x509 certificate with ``cert_id``; CertificateNotFound otherwise."""
        if not isinstance(cert_id, str) or not _SAFE_ID.match(cert_id):
            raise CertificateNotFound(cert_id=cert_id)
        path = os.path.join(self.directory, cert_id + '.pem')
        try:
            with open(path, 'rb') as handle:
                return x509.load_pem_x509_certificate(handle.read())
        except (OSError, ValueError):
            raise CertificateNotFound(cert_id=cert_id)


def from_conf(conf):
    """The configured key manager (only 'file' exists)."""
    return FileKeyManager(conf.key_manager.certificates_dir)

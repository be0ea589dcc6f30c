"""Who is asking: the instance Neutron's proxy names and signs, or the caller's address."""

import dataclasses
import hashlib
import hmac
import logging

LOG = logging.getLogger(__name__)


class Refused(Exception):
    """The request cannot be answered: ``status`` and a sentence for the caller."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


@dataclasses.dataclass(frozen=True)
class Requester:
    """The instance the proxy named (with its project), or only the guest's address."""

    address: str | None
    instance_id: str | None = None
    project_id: str | None = None


def sign(secret, value):
    """HMAC-SHA256 of ``value`` keyed with ``secret``, hex: what Neutron's agent sends."""
    return hmac.new(secret.encode('utf-8'), value.encode('utf-8'), hashlib.sha256).hexdigest()


def _first_forwarded(value):
    # "guest, proxy1, proxy2": the guest is the first; a proxy appends itself.
    return (value.split(',')[0].strip() or None) if value else None


class RequesterCheck:
    """Reads the requester from a request as ``[neutron] service_metadata_proxy`` says.

    Behind the proxy, X-Instance-ID, X-Tenant-ID and X-Instance-ID-Signature
    are required (400 when one is missing or repeated) and the signature must
    be the HMAC of the instance id with the shared secret (403, compared in
    constant time). The X-Metadata-Provider variant (a load balancer naming
    itself, signed likewise when a secret is set) needs ``provider_resolver``,
    a callable (provider id, guest address) -> (instance id, project id) or
    None, which asks Neutron which port that is.
    """

    def __init__(self, proxy, shared_secret='', use_forwarded_for=False,
                 provider_resolver=None):
        self.proxy = proxy
        self.shared_secret = shared_secret or ''
        self.use_forwarded_for = use_forwarded_for
        self.provider_resolver = provider_resolver
        if proxy and not self.shared_secret:
            LOG.warning('[neutron] metadata_proxy_shared_secret is not set: anyone who '
                        'can reach the metadata API can sign a request for any instance')

    def identify(self, req):
        if not self.proxy:
            if req.headers.get('X-Instance-ID'):
                LOG.warning('X-Instance-ID ignored: [neutron] service_metadata_proxy is '
                            'off, the instance is found by its address')
            address = req.remote_addr
            if self.use_forwarded_for:
                address = _first_forwarded(req.headers.get('X-Forwarded-For')) or address
            return Requester(address=address)
        if req.headers.get('X-Metadata-Provider'):
            return self._from_provider(req)
        return self._from_proxy(req)

    def _header(self, req, name):
        value = req.headers.get(name)
        if value is None:
            raise Refused(400, '%s header is missing from request.' % name)
        if ',' in value:
            # The server joins repeated headers with commas.
            raise Refused(400, 'Multiple %s headers found within request.' % name)
        return value.strip()

    def _check_signature(self, value, signature, header, address):
        if not (signature and hmac.compare_digest(sign(self.shared_secret, value),
                                                  signature.strip())):
            # The expected signature is not logged: it would let a log reader
            # ask for this instance's metadata.
            LOG.warning('%s does not match %s (request from %s): check that '
                        '[neutron] metadata_proxy_shared_secret is Neutron\'s',
                        header, value, address)
            raise Refused(403, 'Invalid proxy request signature.')

    def _from_proxy(self, req):
        instance_id = self._header(req, 'X-Instance-ID')
        signature = self._header(req, 'X-Instance-ID-Signature')
        project_id = self._header(req, 'X-Tenant-ID')
        address = _first_forwarded(req.headers.get('X-Forwarded-For'))
        self._check_signature(instance_id, signature, 'X-Instance-ID-Signature', address)
        return Requester(address=address, instance_id=instance_id, project_id=project_id)

    def _from_provider(self, req):
        address = _first_forwarded(req.headers.get('X-Forwarded-For'))
        if address is None:
            raise Refused(400, 'X-Forwarded-For is missing from request.')
        provider = self._header(req, 'X-Metadata-Provider')
        if self.shared_secret:
            self._check_signature(provider, req.headers.get('X-Metadata-Provider-Signature'),
                                  'X-Metadata-Provider-Signature', address)
        if self.provider_resolver is None:
            raise Refused(400, 'X-Metadata-Provider requests need the network service to '
                               'find the port; this metadata API has no such lookup.')
        found = self.provider_resolver(provider, address)
        if found is None:
            raise Refused(400, 'No single port with address %s is served by metadata '
                               'provider %s.' % (address, provider))
        instance_id, project_id = found
        return Requester(address=address, instance_id=instance_id, project_id=project_id)

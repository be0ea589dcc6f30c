"""A server create's ``networks``: parsed once in the API, carried over RPC as the same JSON.

``networks`` is omitted (the project's one network, if any), ``"auto"``
(that, or get-me-a-network), ``"none"`` (no NIC at all) or a list of
``{"uuid": NET, "fixed_ip": IP, "tag": T}`` / ``{"port": PORT, "tag": T}``.
RequestedNetworks.from_api() applies upstream's request rules (with its
messages); to_primitive() gives back the API's own JSON, which is what
crosses RPC to the conductor and the compute host, and from_primitive()
reads it there.
"""

import dataclasses

import netaddr
from oslo_utils import uuidutils

from nova import exception

AUTO = 'auto'
NONE = 'none'


@dataclasses.dataclass
class NetworkRequest:
    """One NIC asked for: a network (with an optional fixed IP) or a port."""

    network_id: str = None
    port_id: str = None
    address: str = None
    tag: str = None

    def to_primitive(self):
        out = {}
        if self.port_id:
            out['port'] = self.port_id
        elif self.network_id:
            out['uuid'] = self.network_id
        if self.address:
            out['fixed_ip'] = self.address
        if self.tag:
            out['tag'] = self.tag
        return out


class RequestedNetworks:
    """What a server create asked for; see the module docstring."""

    def __init__(self, requests=(), auto_allocate=False, no_allocate=False):
        self.requests = list(requests)
        self.auto_allocate = auto_allocate
        self.no_allocate = no_allocate

    def __iter__(self):
        return iter(self.requests)

    def __len__(self):
        return len(self.requests)

    def __repr__(self):
        return 'RequestedNetworks(%r)' % (self.to_primitive(),)

    @property
    def unspecified(self):
        """Nothing named: the project's one available network is used."""
        return not self.requests and not self.no_allocate

    @property
    def port_ids(self):
        return [r.port_id for r in self.requests if r.port_id]

    @property
    def network_ids(self):
        return [r.network_id for r in self.requests if r.network_id and not r.port_id]

    @property
    def has_fixed_ips(self):
        return any(r.address for r in self.requests)

    @classmethod
    def from_api(cls, networks):
        """Parse the body's ``networks`` value; exception.Invalid (400) with
        upstream's message when a request breaks its rules."""
        if networks is None:
            return cls()
        if networks == AUTO:
            return cls(auto_allocate=True)
        if networks == NONE:
            return cls(no_allocate=True)
        if not isinstance(networks, list):
            raise exception.Invalid(reason='Bad networks format')
        requests = []
        for item in networks:
            if not isinstance(item, dict):
                raise exception.Invalid(reason='Bad networks format')
            requests.append(_parse_one(item))
        return cls(requests)

    @classmethod
    def from_primitive(cls, value):
        """The RPC form (to_primitive()'s) back into a RequestedNetworks."""
        if isinstance(value, cls):
            return value
        if value is None:
            return cls()
        if value in (AUTO, NONE):
            return cls(auto_allocate=value == AUTO, no_allocate=value == NONE)
        return cls([NetworkRequest(network_id=item.get('uuid'), port_id=item.get('port'),
                                   address=item.get('fixed_ip'), tag=item.get('tag'))
                    for item in value])

    def to_primitive(self):
        if self.auto_allocate:
            return AUTO
        if self.no_allocate:
            return NONE
        if not self.requests:
            return None
        return [r.to_primitive() for r in self.requests]

    def check_max_count(self, max_count):
        """Upstream's rules for ``max_count`` > 1: a port or a fixed IP can go to
        one server only."""
        if max_count is None or max_count <= 1:
            return
        if self.port_ids:
            raise exception.MultiplePortsNotApplicable(
                reason='Unable to launch multiple instances with a single configured '
                       'port ID. Please launch your instance one by one with different '
                       'ports.')
        if self.has_fixed_ips:
            raise exception.InvalidFixedIpAndMaxCountRequest(
                reason='max_count cannot be greater than 1 if an fixed_ip is specified.')


def _parse_one(item):
    address = item.get('fixed_ip')
    port_id = item.get('port')
    tag = item.get('tag')
    if address is not None:
        if not isinstance(address, str) or not _is_ip(address):
            raise exception.Invalid(reason='Invalid fixed IP address (%s)' % (address,))
    if port_id:
        if address is not None:
            raise exception.Invalid(
                reason="Specified Fixed IP '%(addr)s' cannot be used with port "
                       "'%(port)s': the two cannot be specified together."
                       % {'addr': address, 'port': port_id})
        return NetworkRequest(port_id=port_id, tag=tag)
    if 'uuid' not in item:
        raise exception.Invalid(reason="Bad network format: missing 'uuid'")
    network_id = item['uuid']
    if not uuidutils.is_uuid_like(network_id):
        raise exception.Invalid(
            reason='Bad networks format: network uuid is not in proper format (%s)'
                   % (network_id,))
    return NetworkRequest(network_id=network_id, address=address, tag=tag)


def _is_ip(value):
    try:
        netaddr.IPAddress(value)
    except (netaddr.AddrFormatError, ValueError, TypeError):
        return False
    # netaddr reads "10" or "1.2" as integers/short forms; the API wants dotted quads.
    return ':' in value or value.count('.') == 3

"""Attribute converters and validators with Neutron's error messages (stdlib ipaddress only)."""

import ipaddress
import re
import uuid

from nova.embedded.network import errors

NAME_MAX = 255
DESCRIPTION_MAX = 255
DEVICE_ID_MAX = 255
DEVICE_OWNER_MAX = 255
PROJECT_ID_MAX = 255
DNS_NAME_MAX = 255
_MAC = re.compile(r'^([0-9a-fA-F]{2})([:-][0-9a-fA-F]{2}){5}$')
# Neutron refuses these as port MACs (all zeros, broadcast).
_INVALID_MACS = ('00:00:00:00:00:00', 'ff:ff:ff:ff:ff:ff')
_TRUE = ('true', '1', 't', 'yes', 'y', 'on')
_FALSE = ('false', '0', 'f', 'no', 'n', 'off')


# -- converters: raise InvalidInput, as neutron_lib's converters do ----------

def to_boolean(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        if value.lower() in _TRUE:
            return True
        if value.lower() in _FALSE:
            return False
    raise errors.NeutronInvalidInput("'%s' cannot be converted to boolean" % value)


def to_int(value):
    if isinstance(value, bool):
        return int(value)
    try:
        return int(value)
    except (TypeError, ValueError):
        raise errors.NeutronInvalidInput("'%s' is not an integer" % value) from None


def none_to_empty_list(value):
    return [] if value is None else value


def none_to_empty_dict(value):
    return {} if value is None else value


def canonical_ip(value):
    """IPv6 addresses in their compact form; anything else unchanged."""
    try:
        addr = ipaddress.ip_address(value)
    except (TypeError, ValueError):
        return value
    return str(addr) if addr.version == 6 else value


def canonical_cidr(value):
    try:
        net = ipaddress.ip_interface(value)
    except (TypeError, ValueError):
        raise errors.NeutronInvalidInput('%s is not in a CIDR format' % value) from None
    return '%s/%d' % (canonical_ip(str(net.ip)), net.network.prefixlen)


def canonical_pools(value):
    if value is None:
        return []
    try:
        return [{k: canonical_ip(v) for k, v in pool.items()} for pool in value]
    except (AttributeError, TypeError):
        raise errors.NeutronInvalidInput('Invalid data format for allocation pools') from None


def sanitized_mac(value):
    """Lower case with colons (Neutron accepts dashes too)."""
    if isinstance(value, str) and _MAC.match(value):
        return value.replace('-', ':').lower()
    return value


# -- validators: return a message or None, as neutron_lib's validators do ----

def is_uuid(value):
    if not isinstance(value, str):
        return False
    try:
        return str(uuid.UUID(value)) == value.lower()
    except ValueError:
        return False


def uuid_value(value, _arg=None):
    if not is_uuid(value):
        return "'%s' is not a valid UUID" % (value,)
    return None


def uuid_or_none(value, _arg=None):
    return None if value is None else uuid_value(value)


def uuid_list(value, _arg=None):
    if not isinstance(value, list):
        return "'%s' is not a list" % (value,)
    seen = set()
    for item in value:
        msg = uuid_value(item)
        if msg:
            return msg
        if item in seen:
            return "Duplicate items in the list: '%s'" % item
        seen.add(item)
    return None


def string(value, max_len=None):
    if not isinstance(value, str):
        return "'%s' is not a valid string" % (value,)
    if max_len is not None and len(value) > max_len:
        return "'%s' exceeds maximum length of %s" % (value, max_len)
    return None


def name_string(value, max_len=NAME_MAX):
    msg = string(value, max_len)
    if msg is None and '\n' in value:
        return "Multi-line string is not allowed: '%s'" % value
    return msg


def string_or_none(value, max_len=None):
    return None if value is None else string(value, max_len)


def values(valid):
    def check(value, _arg=None):
        try:
            if value in valid:
                return None
        except TypeError:
            pass
        return '%s is not in %s' % (value, list(valid))
    return check


def dict_or_empty(value, _arg=None):
    if value is None or isinstance(value, dict):
        return None
    return "'%s' is not a dictionary" % (value,)


def _octets_with_leading_zeros(text):
    parts = text.split('.')
    if len(parts) != 4 or not all(p.isdigit() for p in parts):
        return None
    if not any(len(p) > 1 and p.startswith('0') for p in parts):
        return None
    return '.'.join(str(int(p)) for p in parts)


def ip_address(value, _arg=None):
    if not isinstance(value, str) or value != value.strip() or not value:
        return "'%s' is not a valid IP address" % (value,)
    recommended = _octets_with_leading_zeros(value)
    if recommended is not None and all(0 <= int(p) < 256 for p in recommended.split('.')):
        return ("'%s' is not an accepted IP address, '%s' is recommended"
                % (value, recommended))
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return "'%s' is not a valid IP address" % value
    return None


def ip_address_or_none(value, _arg=None):
    return None if value is None else ip_address(value)


def subnet_cidr(value, _arg=None):
    """A CIDR whose address is the network's (Neutron: 'a valid IP subnet')."""
    try:
        net = ipaddress.ip_network(value, strict=False)
    except (TypeError, ValueError):
        return "'%s' is not a valid IP subnet" % (value,)
    if '/' not in value or (net.version == 4 and str(net) != value):
        return "'%s' is not a valid IP subnet" % value
    return None


def subnet_or_none(value, _arg=None):
    return None if value is None else subnet_cidr(value)


def route_cidr(value, _arg=None):
    msg = "'%s' is not a valid CIDR" % (value,)
    try:
        net = ipaddress.ip_interface(value)
    except (TypeError, ValueError):
        return msg
    if '/' not in value or net.ip != net.network.network_address:
        return msg
    if net.ip.is_loopback:
        return "'%s' is not a routable CIDR" % value
    return None


def mac_address(value, _arg=None):
    if (not isinstance(value, str) or not _MAC.match(value)
            or sanitized_mac(value) in _INVALID_MACS):
        return "'%s' is not a valid MAC address" % (value,)
    return None


def _dict_keys(expected, data):
    if not isinstance(data, dict):
        return "Invalid input. '%s' must be a dictionary with keys: %s" % (data, expected)
    provided = set(data)
    if provided != set(expected):
        return ("Validation of dictionary's keys failed. Expected keys: %s "
                "Provided keys: %s" % (set(expected), provided))
    return None


def ip_pools(value, _arg=None):
    if not isinstance(value, list):
        return "Invalid data format for IP pool: '%s'" % (value,)
    for pool in value:
        msg = _dict_keys(['start', 'end'], pool)
        if msg:
            return msg
        for key in ('start', 'end'):
            msg = ip_address(pool[key])
            if msg:
                return msg
    return None


def fixed_ips(value, _arg=None):
    if not isinstance(value, list):
        return "Invalid data format for fixed IP: '%s'" % (value,)
    seen = []
    for item in value:
        if not isinstance(item, dict) or not set(item) <= {'ip_address', 'subnet_id'}:
            return "Invalid data format for fixed IP: '%s'" % (item,)
        if 'ip_address' in item:
            address = item['ip_address']
            msg = ("Duplicate IP address '%s'" % address if address in seen
                   else ip_address(address))
            if msg:
                return msg
            seen.append(address)
        if 'subnet_id' in item:
            msg = uuid_value(item['subnet_id'])
            if msg:
                return msg
    return None


def nameservers(value, _arg=None):
    if not isinstance(value, list):
        return "Invalid data format for nameserver: '%s'" % (value,)
    seen = []
    for host in value:
        msg = ip_address(host)
        if msg:
            return "'%s' is not a valid nameserver. %s" % (host, msg)
        if host in seen:
            return "Duplicate nameserver '%s'" % host
        seen.append(host)
    return None


def hostroutes(value, _arg=None):
    if not isinstance(value, list):
        return "Invalid data format for hostroute: '%s'" % (value,)
    seen = []
    for route in value:
        msg = _dict_keys(['destination', 'nexthop'], route)
        if msg:
            return msg
        msg = route_cidr(route['destination']) or ip_address(route['nexthop'])
        if msg:
            return msg
        if route in seen:
            return "Duplicate hostroute '%s'" % route
        seen.append(route)
    return None


def int_range(low, high):
    def check(value, _arg=None):
        if isinstance(value, bool) or not isinstance(value, int):
            return "'%s' is not an integer" % (value,)
        if value < low:
            return "'%s' is too small - must be at least '%d'" % (value, low)
        if value > high:
            return "'%s' is too large - must be no larger than '%d'" % (value, high)
        return None
    return check


_DNS_LABEL = re.compile(r'^(?!-)[a-z0-9-]{1,63}(?<!-)$')


def dns_host_name(value, _arg=None):
    """A DNS host name (dns-integration's dns_name): labels of letters, digits, '-'."""
    msg = string(value, DNS_NAME_MAX)
    if msg or not value:
        return msg
    name = value.rstrip('.').lower()
    labels = name.split('.')
    if not all(_DNS_LABEL.match(label) for label in labels):
        return ("'%s' not a valid PQDN or FQDN. Reason: must consist of "
                "letters, digits and '-' in labels of 1 to 63 characters, "
                "not starting or ending with '-'" % value)
    if labels[-1].isdigit():
        return ("'%s' not a valid PQDN or FQDN. Reason: TLD '%s' must not be "
                "all numeric" % (value, labels[-1]))
    return None

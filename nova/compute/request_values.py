"""Request values made into stored ones: passwords, hostnames, access IPs, hints, refs."""

import re
import secrets
import string

from nova import exception

_PASSWORD_CHARS = string.ascii_letters + string.digits


def generate_password(length=12):
    return ''.join(secrets.choice(_PASSWORD_CHARS) for _ in range(length))


def sanitize_hostname(name, default='server'):
    """RFC 952-ish hostname from a display name, as upstream derives it."""
    hostname = re.sub(r'[ _.]', '-', name.lower())
    hostname = re.sub(r'[^\w-]+', '', hostname, flags=re.ASCII).strip('-')[:63]
    return hostname or default


def normalize_ip(value, version):
    """An access IP in its canonical text form (upstream stores netaddr's), or None.

    '0:0:0:0:0:ffff:10.0.0.1' becomes '::ffff:10.0.0.1': short enough for the
    39-character column on every database, and what upstream shows.
    """
    if not value:
        return None
    import netaddr
    try:
        return str(netaddr.IPAddress(value, version))
    except (netaddr.AddrFormatError, ValueError):
        field = 'accessIPv%d' % version
        raise exception.Invalid(reason='Invalid input for field/attribute %s. Value: %s. '
                                       'Not a valid IPv%d address.' % (field, value, version))


def hint_lists(hints):
    """Scheduler hints with every value a list, as upstream's request spec keeps them."""
    return {k: (list(v) if isinstance(v, (list, tuple)) else [v])
            for k, v in (hints or {}).items()}


def instance_hints(hints):
    """same_host / different_host as lists of server uuids for the scheduler."""
    lists = hint_lists(hints)
    return {k: [str(u) for u in lists[k]] for k in ('same_host', 'different_host')
            if k in lists}


def image_id_from_ref(ref):
    """imageRef may be an id or a URL ending in the id."""
    return ref.rstrip('/').rsplit('/', 1)[-1] if ref else ref

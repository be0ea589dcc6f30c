"""A server's trusted image certificate ids (microversion 2.63): rules and storage."""

import json

from nova import exception

# Kept in the instance's system metadata, unprefixed, as a JSON list (or absent).
SYSMETA_KEY = 'trusted_certs'

VOLUME_BOOT_MSG = 'Image certificate validation is not supported when booting from volume'
VOLUME_REBUILD_MSG = ('Image certificate validation is not supported for volume-backed '
                      'servers.')


def defaults(conf):
    """The deployment's default ids, when certificate validation is on; else None."""
    glance = conf.glance
    if (glance.verify_glance_signatures and glance.enable_certificate_validation
            and glance.default_trusted_certificate_ids):
        return list(glance.default_trusted_certificate_ids)
    return None


def requested(conf, ids):
    """The ids to record for a create or rebuild: the request's, else the defaults.

    A rebuild naming null resets to the defaults (or to none), as upstream.
    """
    return list(ids) if ids else defaults(conf)


def check_image_backed(ids, volume_backed, rebuild=False):
    """Certificates are checked on image downloads only: 400 for a volume root."""
    if ids and volume_backed:
        raise exception.Invalid(reason=VOLUME_REBUILD_MSG if rebuild else VOLUME_BOOT_MSG)


def store(system_metadata, ids):
    """Record ``ids`` (or their absence) in a system metadata dict, in place."""
    if ids:
        system_metadata[SYSMETA_KEY] = json.dumps(list(ids))
    else:
        system_metadata.pop(SYSMETA_KEY, None)
    return system_metadata


def of(instance):
    """The server's trusted certificate ids, or None (a row or an Instance object)."""
    sysmeta = (instance.get('system_metadata') if isinstance(instance, dict)
               else getattr(instance, 'system_metadata', None))
    value = (sysmeta or {}).get(SYSMETA_KEY)
    return json.loads(value) if value else None

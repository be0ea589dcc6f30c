"""The compute host's image check before caching: [glance] signature and certificate rules."""

import functools

from oslo_config import cfg

from nova import trusted_certs


def verifier(conf, instance):
    """``verify(context, image, path)`` for the image cache, or None when checks are off."""
    try:
        enabled = conf.glance.verify_glance_signatures
    except cfg.NoSuchOptError:
        # A driver configured without the [glance] group (as some tests build it).
        return None
    if not enabled:
        return None
    validate = conf.glance.enable_certificate_validation
    return functools.partial(_verify, conf,
                             trusted_ids=(trusted_certs.of(instance) or [])
                             if validate else None,
                             validate_certs=validate)


def _verify(conf, context, image, path, trusted_ids=None, validate_certs=False):
    # Loaded on use: the driver keeps cryptography out of the service unless it verifies.
    from nova import keymgr
    from nova.image import signature
    signature.verify_file(keymgr.from_conf(conf), context, image, path,
                          trusted_ids=trusted_ids, validate_certs=validate_certs)

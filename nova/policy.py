"""The policy enforcer (oslo.policy) built from the rules in nova/policies."""

import threading

from oslo_config import cfg
from oslo_policy import policy as oslo_policy

from nova import policies

_ENFORCER = None
_LOCK = threading.Lock()


def get_enforcer(conf=None):
    """Enforcer for ``conf`` (the oslo.policy generator entry point, too)."""
    global _ENFORCER
    with _LOCK:
        if _ENFORCER is None or (conf is not None and _ENFORCER.conf is not conf):
            _ENFORCER = oslo_policy.Enforcer(conf or _defaults_only())
            _ENFORCER.register_defaults(policies.list_rules())
        return _ENFORCER


def _defaults_only():
    """A parsed, empty configuration: the in-code defaults, for a process that
    checks policy before (or without) loading a service configuration."""
    if cfg.CONF._args is not None:
        return cfg.CONF
    conf = cfg.ConfigOpts()
    conf([], project='nova', default_config_files=[], default_config_dirs=[])
    return conf


def init(conf):
    return get_enforcer(conf)


def authorize(context, action, target):
    enforcer = get_enforcer()
    credentials = context.to_policy_values()
    return enforcer.authorize(action, target, credentials, do_raise=False)


def check_is_admin(context):
    """Does ``context`` pass ``context_is_admin`` (the Keystone ``admin`` role)?"""
    credentials = context.to_policy_values()
    return get_enforcer().authorize('context_is_admin', credentials, credentials,
                                    do_raise=False)

"""The policy enforcer (oslo.policy) built from the rules in nova/policies."""

import threading
import time

from oslo_config import cfg
from oslo_policy import policy as oslo_policy

from nova import policies

_ENFORCER = None
_LOCK = threading.Lock()
# Policy files are re-read (when changed) at most this often, in seconds.
RECHECK_INTERVAL = 1.0
_CACHE_MAX = 20000


class Enforcer(oslo_policy.Enforcer):
    """oslo.policy's Enforcer, checking its files at most once a second, with
    decisions remembered per rule set.

    oslo.policy looks for changed policy files on every check (about a
    millisecond each, several checks per request). Here a changed file still
    takes effect, within ``RECHECK_INTERVAL``; a reload clears the remembered
    decisions. Rules that call out (``http:`` checks) are never remembered.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._checked_at = None
        self._decisions = {}
        self._cacheable = False
        self._rules_seen = None

    def load_rules(self, force_reload=False):
        now = time.monotonic()
        if (not force_reload and self._checked_at is not None
                and now - self._checked_at < RECHECK_INTERVAL):
            return
        super().load_rules(force_reload)
        self._checked_at = now
        rules = self.rules
        if rules is not self._rules_seen or force_reload:
            self._rules_seen = rules
            self._decisions = {}
            self._cacheable = not any('http:' in str(rule) for rule in rules.values())

    def decide(self, action, target, credentials):
        """enforcer.authorize(..., do_raise=False), remembered for equal inputs."""
        self.load_rules()
        key = None
        if self._cacheable:
            try:
                key = (action, _freeze(target), _freeze(credentials))
                return self._decisions[key]
            except KeyError:
                pass
            except TypeError:  # an unhashable value: decide without memory
                key = None
        allowed = self.authorize(action, target, credentials, do_raise=False)
        if key is not None:
            if len(self._decisions) >= _CACHE_MAX:
                self._decisions = {}
            self._decisions[key] = bool(allowed)
        return bool(allowed)


def _freeze(values):
    return tuple(sorted((key, tuple(value) if isinstance(value, list) else value)
                        for key, value in values.items()))


def get_enforcer(conf=None):
    """Enforcer for ``conf`` (the oslo.policy generator entry point, too)."""
    global _ENFORCER
    with _LOCK:
        if _ENFORCER is None or (conf is not None and _ENFORCER.conf is not conf):
            _ENFORCER = Enforcer(conf or _defaults_only())
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
    return get_enforcer().decide(action, target, context.to_policy_values())


def check_is_admin(context):
    """Does ``context`` pass ``context_is_admin`` (the Keystone ``admin`` role)?"""
    credentials = context.to_policy_values()
    return get_enforcer().decide('context_is_admin', credentials, credentials)

"""oslo.policy's plug-in rule checks (http:, https:), imported only when a rule uses one."""

import collections.abc
import importlib.metadata
import threading

from oslo_policy import _checks

# The entry point group of oslo.policy's plug-in rule checks.
GROUP = 'oslo.policy.rule_checks'
_LOCK = threading.Lock()


class LazyRuleChecks(collections.abc.Mapping):
    """The plug-in checks by entry point name, each imported on first use.

    oslo.policy imports every plug-in when it parses its first rule, and its
    ``http:`` check brings in requests (about 5 MB of a process). Our rules
    use no plug-in, so a process whose policy file uses none never imports it;
    one that does gets the same check class as before.
    """

    def __init__(self):
        self._points = {point.name: point
                        for point in importlib.metadata.entry_points(group=GROUP)}
        self._loaded = {}

    def __contains__(self, name):
        return name in self._points

    def __getitem__(self, name):
        if name not in self._loaded:
            self._loaded[name] = self._points[name].load()
        return self._loaded[name]

    def __iter__(self):
        return iter(self._points)

    def __len__(self):
        return len(self._points)


def install():
    """Give oslo.policy the lazy mapping, unless it already loaded its plug-ins."""
    with _LOCK:
        if getattr(_checks, 'extension_checks', ()) is None:
            _checks.extension_checks = LazyRuleChecks()

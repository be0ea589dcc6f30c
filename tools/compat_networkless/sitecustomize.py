"""NOVA_COMPAT_NETWORKLESS=1: tempest's compute tests run without asking for a default network.

Many classes of ``tempest.api.compute`` set ``create_default_network = True`` (tempest bug
1844568: with Neutron, a server needs a network) and so skip as a whole when there is no
network service, although most of their tests never touch a network. tools/run-compat.sh
puts this directory first on tempest's PYTHONPATH when asked: every subclass of
``BaseV2ComputeTest`` then has ``create_default_network = False``, and tests that do need
networking still skip by their own checks (or fail, and say so). Diagnostic only: the
default stage runs upstream tempest unchanged.
"""

import importlib.abc
import importlib.util
import sys

_BASE = 'tempest.api.compute.base'


class _NoDefaultNetwork(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != _BASE:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        exec_module = spec.loader.exec_module

        def patched(module):
            exec_module(module)
            base = module.BaseV2ComputeTest

            def init_subclass(cls, **kwargs):
                super(base, cls).__init_subclass__(**kwargs)
                cls.create_default_network = False

            base.__init_subclass__ = classmethod(init_subclass)

        spec.loader.exec_module = patched
        return spec


sys.meta_path.insert(0, _NoDefaultNetwork())

"""oslo.utils' LUKS helper, loaded when a LUKS image needs it: it imports cryptography."""

import importlib
import importlib.machinery
import importlib.util
import sys
import types

NAME = 'oslo_utils.imageutils._luks'


class _OnDemand(types.ModuleType):
    """Stands in for the helper module until an attribute is needed.

    The format inspector names ``LUKSHeader`` in an annotation and a
    ``typing.cast`` when it is defined; nothing else of the helper runs before
    a LUKS image is inspected with a passphrase (Nova never passes one), so
    cryptography (about 7 MB resident) stays out of most processes.
    """

    def __getattr__(self, name):
        real = self.__dict__.get('_real')
        if real is None:
            if name == 'LUKSHeader':
                return dict
            real = self._load()
        return getattr(real, name)

    def _load(self):
        package = importlib.import_module(NAME.rpartition('.')[0])
        spec = importlib.machinery.PathFinder.find_spec(NAME, package.__path__)
        real = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(real)
        self._real = real
        return real


def install():
    """Put the stand-in in place unless the helper is already imported."""
    if NAME in sys.modules:
        return
    package = importlib.import_module(NAME.rpartition('.')[0])
    module = _OnDemand(NAME)
    sys.modules[NAME] = module
    package._luks = module

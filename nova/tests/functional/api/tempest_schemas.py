"""Pick tempest.lib's compute response schema for a microversion and validate with it."""

import importlib
import pkgutil
import types

from tempest.lib.api_schema.response import compute
from tempest.lib.common import rest_client


def _modules():
    """[((2, N), 'v2_N'), ...] newest first, from tempest's own package layout."""
    found = []
    for info in pkgutil.iter_modules(compute.__path__):
        if info.ispkg and info.name.startswith('v2_'):
            found.append(((2, int(info.name[3:])), info.name))
    return sorted(found, reverse=True)


MODULES = _modules()


def parse(text):
    major, minor = text.split('.')
    return int(major), int(minor)


def find(resource, name, version):
    """The schema ``name`` from the newest v2_* ``resource`` module at or below ``version``.

    A module that does not define ``name`` (or has no ``resource`` file) is skipped,
    so the lookup falls back to the newest module that does.
    """
    wanted = parse(version)
    for mv, pkg in MODULES:
        if mv > wanted:
            continue
        try:
            module = importlib.import_module('%s.%s.%s' % (compute.__name__, pkg, resource))
        except ImportError:
            continue
        if hasattr(module, name):
            return getattr(module, name)
    raise LookupError('no tempest schema %s.%s at or below %s' % (resource, name, version))


def validate(resource, name, version, status, body):
    """Raise tempest's own exception when (status, body) does not match the schema."""
    validate_schema(find(resource, name, version), status, body)


def validate_schema(schema, status, body):
    # validate_response skips the body of an error status, so check the code first.
    assert status in schema['status_code'], (status, body)
    rest_client.RestClient.validate_response(schema, types.SimpleNamespace(status=status),
                                             body)

"""Every integer a request schema accepts is bounded, so none can overflow a column."""

from nova.api import microversion as mv
from nova.api import router

# Numbers stored as text, never in an integer column: no bound needed.
_STORED_AS_TEXT = ('/extra_specs/patternProperties/', 'os-extra_specs/{key}',
                   'flavors._specs:', 'flavors.extra_spec_update:',
                   '/properties/flavor/properties/id', '/flavorRef')


def _walk(node, path):
    if isinstance(node, dict):
        kinds = node.get('type', [])
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if {'integer', 'number'} & set(kinds) and 'enum' not in node:
            if 'maximum' not in node:
                yield path
        for key, value in node.items():
            yield from _walk(value, '%s/%s' % (path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, '%s/%d' % (path, i))


def _schemas():
    versions = [mv.parse(v) for v, _doc in mv.VERSIONS]
    for template, methods in router.ROUTES:
        for method, meth in methods.items():
            for spec, low, high in getattr(meth.handler, '__schemas__', ()):
                for version in versions:
                    if (low is None or version >= low) and (high is None or version <= high):
                        yield ('%s %s %s' % (method, template, mv.as_string(version)),
                               spec(version) if callable(spec) else spec)


def test_every_integer_in_every_route_schema_has_a_maximum():
    unbounded = sorted({'%s: %s' % (where.rsplit(' ', 1)[0], path)
                        for where, schema in _schemas() for path in _walk(schema, '')})
    unbounded = [u for u in unbounded if not any(t in u for t in _STORED_AS_TEXT)]
    assert not unbounded, '\n'.join(unbounded[:50])


def test_the_walk_sees_the_routes():
    assert sum(1 for _ in _schemas()) > 100


def _module_schemas():
    """Schema constants of nova.api.schemas and of handler modules that keep their own."""
    import importlib
    import pkgutil

    import nova.api.handlers
    import nova.api.schemas
    for package in (nova.api.schemas, nova.api.handlers):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module('%s.%s' % (package.__name__, info.name))
            for name, value in vars(module).items():
                if isinstance(value, dict) and value.get('type') == 'object':
                    yield '%s.%s' % (module.__name__, name), value


def test_every_integer_in_every_schema_constant_has_a_maximum():
    unbounded = sorted('%s: %s' % (where, path) for where, schema in _module_schemas()
                       for path in _walk(schema, ''))
    unbounded = [u for u in unbounded if not any(t in u for t in _STORED_AS_TEXT)]
    assert not unbounded, '\n'.join(unbounded[:50])

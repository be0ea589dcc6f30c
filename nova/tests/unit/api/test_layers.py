"""The layering rules of the API tier, checked on the source: who may import what."""

import ast
import pathlib

import nova

ROOT = pathlib.Path(nova.__file__).parent


def _modules(pattern):
    return sorted(p for p in ROOT.glob(pattern) if p.suffix == '.py')


def _imports(path):
    """Every module name ``path`` imports (``from a import b`` counts as a and a.b)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update('%s.%s' % (node.module, alias.name) for alias in node.names)
    return names


def _db_attributes(path):
    """Lines where ``path`` reads an attribute named ``db`` (``req.app.db``, ``x.db``)."""
    return [node.lineno for node in ast.walk(ast.parse(path.read_text(), str(path)))
            if isinstance(node, ast.Attribute) and node.attr == 'db']


def _offenders(paths, forbidden):
    return {str(p.relative_to(ROOT.parent)): sorted(
        n for n in _imports(p) if any(n == f or n.startswith(f + '.') for f in forbidden))
        for p in paths}


def test_the_checks_see_imports_and_db_attributes(tmp_path):
    # The scanners must find what they look for, or the rules below prove nothing.
    sample = tmp_path / 'sample.py'
    sample.write_text('from nova.db import api\nimport nova.virt.libvirt.driver\n'
                      'def f(req):\n    return req.app.db.instance_get(1)\n')
    assert {'nova.db', 'nova.db.api', 'nova.virt.libvirt.driver'} <= _imports(sample)
    assert _db_attributes(sample) == [4]


def test_api_tier_never_touches_the_database():
    paths = _modules('api/**/*.py')
    assert len(paths) > 40
    assert {k: v for k, v in _offenders(paths, ['nova.db']).items() if v} == {}
    assert {str(p.relative_to(ROOT.parent)): _db_attributes(p)
            for p in paths if _db_attributes(p)} == {}


def test_compute_api_is_driver_agnostic():
    paths = _modules('compute/api*.py')
    assert len(paths) > 10
    assert {k: v for k, v in _offenders(paths, ['nova.virt.libvirt']).items() if v} == {}


def _version_literals(path):
    """Lines of ``path`` holding a bare ``(2, N)`` microversion tuple."""
    return [node.lineno for node in ast.walk(ast.parse(path.read_text(), str(path)))
            if isinstance(node, ast.Tuple) and len(node.elts) == 2
            and all(isinstance(e, ast.Constant) and type(e.value) is int for e in node.elts)
            and node.elts[0].value == 2]


def test_microversion_thresholds_are_named(tmp_path):
    sample = tmp_path / 'sample.py'
    sample.write_text('x = req.is_at_least((2, 58))\n')
    assert _version_literals(sample) == [1]
    found = {str(p.relative_to(ROOT.parent)): _version_literals(p)
             for p in _modules('api/**/*.py') if p.name != 'microversion.py'}
    assert {k: v for k, v in found.items() if v} == {}


def _policy_literals(path):
    """Lines of ``path`` with a string literal naming a policy rule."""
    return [node.lineno for node in ast.walk(ast.parse(path.read_text(), str(path)))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and node.value.startswith('os_compute_api')]


def test_handlers_name_policies_by_constant(tmp_path):
    sample = tmp_path / 'sample.py'
    sample.write_text("req.context.can('os_compute_api:servers:show')\n")
    assert _policy_literals(sample) == [1]
    found = {str(p.relative_to(ROOT.parent)): _policy_literals(p)
             for p in _modules('api/**/*.py')}
    assert {k: v for k, v in found.items() if v} == {}


def _calls(path, names):
    """(function, callee) for each call in ``path`` to an attribute in ``names``."""
    found = []
    for func in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(func, ast.FunctionDef):
            for node in ast.walk(func):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr in names):
                    found.append((func.name, node.func.attr))
    return found


def test_handlers_validate_bodies_with_the_schema_decorator():
    found = {(p.name, f, c) for p in _modules('api/handlers/*.py')
             for f, c in _calls(p, {'validate', 'validate_query', 'json_body'})}
    # Only the dispatchers of action bodies read a body themselves (to find the
    # action's handler, which the decorator validates); a path segment that must
    # be a tag is checked against the tag schema.
    assert found == {('aggregates.py', 'action', 'json_body'),
                     ('flavor_extras.py', 'action', 'json_body'),
                     ('server_actions.py', 'action_name', 'json_body'),
                     ('server_tags.py', 'update', 'validate')}


def test_request_schemas_live_in_the_schemas_package():
    # A JSON schema is a dict literal with 'type' and a keyword that constrains it.
    keywords = {'properties', 'enum', 'pattern', 'required', 'additionalProperties',
                'items', 'minLength', 'maxLength', 'format', 'minimum', 'maximum'}

    def schemas_in(path):
        lines = []
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            keys = {k.value for k in getattr(node, 'keys', ()) if isinstance(k, ast.Constant)}
            if isinstance(node, ast.Dict) and 'type' in keys and keys & keywords:
                lines.append(node.lineno)
        return lines
    assert schemas_in(ROOT / 'api' / 'schemas' / 'servers.py')
    found = {p.name: schemas_in(p) for p in _modules('api/handlers/*.py')}
    assert {k: v for k, v in found.items() if v} == {}

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

"""Every third-party module the service imports is declared in requirements.txt."""

import ast
import importlib.metadata
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]


def _declared():
    names = set()
    for line in (ROOT / 'requirements.txt').read_text().splitlines():
        line = line.split('#')[0].strip()
        if line:
            names.add(_canon(re.split(r'[\[<>=!~; ]', line, maxsplit=1)[0]))
    return names


def _canon(name):
    return re.sub(r'[-_.]+', '-', name).lower()


def _imported():
    """Top-level modules imported by the service's code (tests excluded)."""
    found = {}
    for path in (ROOT / 'nova').rglob('*.py'):
        if 'tests' in path.relative_to(ROOT / 'nova').parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                tops = [alias.name.split('.')[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                tops = [node.module.split('.')[0]]
            else:
                continue
            for top in tops:
                found.setdefault(top, path.relative_to(ROOT))
    return found


def test_every_third_party_import_is_declared():
    declared = _declared()
    dists = importlib.metadata.packages_distributions()
    missing = []
    for module, where in sorted(_imported().items()):
        if module in sys.stdlib_module_names or module in ('nova', '__future__'):
            continue
        names = {_canon(d) for d in dists.get(module, [module])}
        if not names & declared:
            missing.append('%s (%s, from %s)' % (module, '/'.join(sorted(names)), where))
    assert not missing, 'imported but not in requirements.txt: ' + ', '.join(missing)


def test_every_declared_requirement_is_imported():
    dists = importlib.metadata.packages_distributions()
    used = set()
    for module in _imported():
        used.update(_canon(d) for d in dists.get(module, ()))
    unused = _declared() - used
    assert not unused, 'declared but never imported: ' + ', '.join(sorted(unused))

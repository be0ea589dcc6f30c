"""The compute API's shape: families built with what they use, callers going through them."""

import ast
import pathlib

import pytest

import nova
from nova import conf as nova_conf
from nova.compute import api as compute_api_mod

ROOT = pathlib.Path(nova.__file__).parent
FAMILY_FILES = sorted(ROOT.glob('compute/api.py')) + sorted(ROOT.glob('compute/api_*.py'))


def _classes(path):
    return [node for node in ast.parse(path.read_text(), str(path)).body
            if isinstance(node, ast.ClassDef)]


def _self_attributes(node, ctx):
    return {n.attr for n in ast.walk(node)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
            and n.value.id == 'self' and isinstance(n.ctx, ctx)}


def _own_members(cls):
    """Methods, properties and class attributes the class body defines."""
    names = set()
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _init(cls):
    return next((n for n in cls.body if isinstance(n, ast.FunctionDef)
                 and n.name == '__init__'), None)


def _unexplained_reads(cls):
    """``self.X`` reads that neither ``__init__`` nor the class body explains."""
    init = _init(cls)
    assigned = _self_attributes(init, ast.Store) if init else set()
    return sorted(_self_attributes(cls, ast.Load) - assigned - _own_members(cls))


def _unused_collaborators(cls):
    """What ``__init__`` takes or stores but no method reads (it should not be passed)."""
    init = _init(cls)
    if init is None:
        return []
    params = {a.arg for a in init.args.args[1:] + init.args.kwonlyargs}
    stored = _self_attributes(init, ast.Store)
    used_in_init = {n.id for n in ast.walk(init) if isinstance(n, ast.Name)}
    reads = set()
    for method in cls.body:
        if isinstance(method, ast.FunctionDef) and method.name != '__init__':
            reads |= _self_attributes(method, ast.Load)
    return sorted((params - used_in_init) | (stored - reads))


def test_the_walks_see_what_they_look_for(tmp_path):
    # The checks below prove nothing unless they catch a mixin's silent call.
    sample = tmp_path / 'sample.py'
    sample.write_text(
        'class RescueMixin:\n'
        '    def rescue(self):\n'
        '        self.check_locked()\n'
        '        return self._db, self._own()\n'
        '    def _own(self):\n'
        '        return 1\n'
        'class RescueAPI:\n'
        '    def __init__(self, db, conf):\n'
        '        self._db = db\n'
        '        self._image_api = None\n'
        '    def rescue(self):\n'
        '        return self._db\n')
    mixin, family = _classes(sample)
    assert _unexplained_reads(mixin) == ['_db', 'check_locked']
    assert _unexplained_reads(family) == []
    assert _unused_collaborators(family) == ['_image_api', 'conf']


def test_no_mixins_and_no_inheritance_between_families():
    names = {cls.name for path in FAMILY_FILES for cls in _classes(path)}
    assert not [n for n in names if n.endswith('Mixin')]
    # Errors derive from nova.exception; nothing else inherits.
    inheriting = {cls.name: [ast.unparse(b) for b in cls.bases]
                  for path in FAMILY_FILES for cls in _classes(path)
                  if any(not ast.unparse(b).startswith('exception.') for b in cls.bases)}
    assert inheriting == {}


@pytest.mark.parametrize('path', FAMILY_FILES, ids=[p.name for p in FAMILY_FILES])
def test_every_name_a_family_reads_arrives_through_its_init(path):
    found = {cls.name: _unexplained_reads(cls) for cls in _classes(path)}
    assert {k: v for k, v in found.items() if v} == {}


@pytest.mark.parametrize('path', FAMILY_FILES, ids=[p.name for p in FAMILY_FILES])
def test_a_family_is_given_exactly_what_it_uses(path):
    found = {cls.name: _unused_collaborators(cls) for cls in _classes(path)
             if cls.name != 'API'}
    assert {k: v for k, v in found.items() if v} == {}


def test_family_names_say_their_layer():
    families = [cls.name for path in FAMILY_FILES for cls in _classes(path)
                if _init(cls) is not None]
    assert len(families) >= 20
    assert [n for n in families if not n.endswith('API')] == []


def _parts():
    root = compute_api_mod.API(nova_conf.new_config(), None, None, None, None)
    return set(vars(root))


def _names_read_off_the_compute_api(path):
    """(line, name) of each attribute read directly off ``...compute_api`` in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Attribute):
            continue
        base = node.value
        if (isinstance(base, ast.Attribute) and base.attr == 'compute_api') or \
                (isinstance(base, ast.Name) and base.id == 'compute_api'):
            found.append((node.lineno, node.attr))
    return found


def test_the_root_exposes_the_families():
    parts = _parts()
    assert {'core', 'quota', 'servers', 'rescue', 'rebuild', 'resize', 'shelve'} <= parts
    root = compute_api_mod.API(nova_conf.new_config(), None, None, None, None)
    # The root only composes: no method of its own for a caller to reach past a family.
    assert [n for n in vars(compute_api_mod.API) if not n.startswith('__')] == []
    assert root.rescue is not root.resize


def test_callers_use_a_family_of_the_compute_api():
    parts = _parts()
    paths = sorted(ROOT.glob('api/**/*.py'))
    found = {str(p.relative_to(ROOT.parent)): [(line, name) for line, name in
                                               _names_read_off_the_compute_api(p)
                                               if name not in parts]
             for p in paths}
    assert {k: v for k, v in found.items() if v} == {}
    reads = {name for p in paths for _line, name in _names_read_off_the_compute_api(p)}
    assert {'servers', 'rescue', 'admin', 'quota'} <= reads

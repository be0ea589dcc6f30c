"""nova/network is born in the collaborator shape: no mixins, every self.X set in __init__."""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[3] / 'network'
FILES = sorted(PACKAGE.glob('*.py'))


def _classes():
    for path in FILES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                yield path.name, node


def test_no_mixins():
    assert [(f, c.name) for f, c in _classes()
            if c.name.endswith('Mixin') or any(getattr(b, 'id', '').endswith('Mixin')
                                               for b in c.bases)] == []


def _own_names(cls):
    names = set()
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(item.name)
        elif isinstance(item, ast.Assign):
            names.update(t.id for t in item.targets if isinstance(t, ast.Name))
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names.add(item.target.id)   # a dataclass field
    init = next((i for i in cls.body if isinstance(i, ast.FunctionDef)
                 and i.name == '__init__'), None)
    for node in ast.walk(init) if init else ():
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id == 'self' and isinstance(node.ctx, ast.Store)):
            names.add(node.attr)
    return names


# NeutronClient's base (the image and volume clients' ServiceClient) sets these.
INHERITED = {'NeutronClient': {'_conf', '_transport', '_service_auth', '_retries',
                               '_keystoneauth', 'GROUP'}}


@pytest.mark.parametrize('where,cls', list(_classes()), ids=lambda v: getattr(v, 'name', v))
def test_every_self_attribute_comes_from_init(where, cls):
    own = _own_names(cls) | INHERITED.get(cls.name, set())
    read = {node.attr for node in ast.walk(cls)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == 'self'}
    assert read - own == set(), '%s.%s reads attributes it does not set' % (where, cls.name)


def test_class_names_are_unique_in_the_tree():
    tree = PACKAGE.parent
    names = {}
    for path in tree.rglob('*.py'):
        if 'tests' in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                names.setdefault(node.name, []).append(str(path.relative_to(tree)))
    ours = {c.name for _f, c in _classes()}
    assert {n: names[n] for n in ours if len(names[n]) > 1} == {}

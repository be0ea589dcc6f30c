"""The shape of nova/db: table groups on one base (DBStore), none reaching into another."""

import ast
import pathlib

import pytest

from nova.db import api, store

NOVA = pathlib.Path(__file__).resolve().parents[3]
DB = NOVA / 'db'
BASE = 'DBStore'


def _classes(path):
    return [node for node in ast.parse(path.read_text()).body
            if isinstance(node, ast.ClassDef)]


def _base_names(cls):
    return [ast.unparse(base) for base in cls.bases]


def _groups():
    """{class name: ClassDef} of every class in nova/db built on DBStore."""
    found = {}
    for path in sorted(DB.glob('*.py')):
        for cls in _classes(path):
            if any(name.split('.')[-1] == BASE for name in _base_names(cls)):
                found[cls.name] = cls
    return found


def _defined(cls):
    """Names a class defines: methods, class attributes, attributes its methods set."""
    names = set()
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    for node in ast.walk(cls):
        if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name) and node.value.id == 'self'):
            names.add(node.attr)
    return names


def _self_reads(cls):
    return {node.attr for node in ast.walk(cls)
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)
            and isinstance(node.value, ast.Name) and node.value.id in ('self', 'cls')}


def _store_class():
    (cls,) = [c for c in _classes(DB / 'store.py') if c.name == BASE]
    return cls


def _foreign_reads(cls, base_names):
    """What ``cls`` reads through self that neither it nor the base defines."""
    return sorted(_self_reads(cls) - _defined(cls) - base_names)


def test_the_groups_are_found():
    # The checks below are only worth something if they see the groups.
    assert {'InstancesDB', 'FlavorsDB', 'QuotasDB', 'HostScopeDB'} <= set(_groups())


@pytest.mark.parametrize('name', sorted(_groups()))
def test_a_group_inherits_only_the_store(name):
    assert _base_names(_groups()[name]) in (['store.DBStore'], ['DBStore'])


@pytest.mark.parametrize('name', sorted(_groups()))
def test_a_group_reads_only_its_own_names_and_the_stores(name):
    assert _foreign_reads(_groups()[name], _defined(_store_class())) == [], (
        'move the query into this group, or the shared piece into store.DBStore')


def test_the_check_catches_a_call_into_another_group():
    source = ('class A(store.DBStore):\n'
              '    def a(self):\n'
              '        return self._one(None, None) or self.server_group_get("x")\n')
    (cls,) = ast.parse(source).body
    assert _foreign_reads(cls, _defined(_store_class())) == ['server_group_get']


def test_no_two_groups_define_the_same_name():
    # Database inherits them all: a second definition would silently hide the first.
    seen, clashes = {}, []
    for name, cls in _groups().items():
        for attr in _defined(cls):
            if attr in seen:
                clashes.append('%s: %s and %s' % (attr, seen[attr], name))
            seen[attr] = name
    assert clashes == []


def test_database_is_every_group_and_nothing_else():
    assert set(vars(api.Database)) <= {'__module__', '__qualname__', '__doc__',
                                       '__firstlineno__', '__static_attributes__'}
    assert {base.__name__ for base in api.Database.__bases__} == set(_groups())
    assert all(issubclass(base, store.DBStore) for base in api.Database.__bases__)


def test_class_names_in_nova_db_are_unique_in_the_tree():
    where = {}
    for path in sorted(NOVA.rglob('*.py')):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                where.setdefault(node.name, []).append(str(path.relative_to(NOVA.parent)))
    repeated = {name: paths for name, paths in where.items()
                if len(paths) > 1 and any(p.startswith('nova/db/') for p in paths)}
    assert repeated == {}

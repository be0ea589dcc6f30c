"""The metadata code's classes say what they use: no mixins, every self.X set in __init__."""

import ast
import pathlib

import pytest

NOVA = pathlib.Path(__file__).resolve().parents[3]
PACKAGES = ('metadata', 'api/metadata')


def _classes():
    for package in PACKAGES:
        for path in sorted((NOVA / package).glob('*.py')):
            for node in ast.parse(path.read_text()).body:
                if isinstance(node, ast.ClassDef):
                    yield '%s:%s' % (path.relative_to(NOVA), node.name), node


CLASSES = dict(_classes())


def _own_names(cls):
    """Methods, properties and class attributes, and what ``__init__`` assigns to self."""
    names = set()
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
            if node.name == '__init__':
                names.update(n.attr for n in ast.walk(node)
                             if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
                             and isinstance(n.value, ast.Name) and n.value.id == 'self')
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)     # dataclass fields
    return names


def _self_reads(cls):
    return {n.attr for n in ast.walk(cls) if isinstance(n, ast.Attribute)
            and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name)
            and n.value.id == 'self'}


def test_the_check_sees_a_name_from_elsewhere():
    # A name set outside __init__ (or by a sibling through self) is what the rule forbids.
    (cls,) = ast.parse('class A(B):\n    def __init__(self):\n        self.a = 1\n'
                       '    def f(self):\n        self.c = self.a + self.b\n').body
    assert _self_reads(cls) - _own_names(cls) == {'b'}


def test_the_classes_are_found():
    names = {key.split(':')[1] for key in CLASSES}
    assert {'InstanceContent', 'MetadataSource', 'MetadataApp', 'RequesterCheck'} <= names


@pytest.mark.parametrize('key', sorted(CLASSES))
def test_no_mixins(key):
    bases = [ast.unparse(b) for b in CLASSES[key].bases]
    assert not [b for b in bases if b.endswith('Mixin')], bases


@pytest.mark.parametrize('key', sorted(CLASSES))
def test_every_self_name_is_the_classs_own(key):
    cls = CLASSES[key]
    # Exceptions read what Exception gives them (args); nothing else is inherited.
    inherited = {'args'} if any(ast.unparse(b).endswith(('Exception', 'Error'))
                                for b in cls.bases) else set()
    assert sorted(_self_reads(cls) - _own_names(cls) - inherited) == []

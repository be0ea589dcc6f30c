"""The embedded network package keeps the project's class shape: parts say what they use."""

import ast
import pathlib
import re

import nova.embedded.network

PACKAGE = pathlib.Path(nova.embedded.network.__file__).parent
_CLASS = re.compile(r'^class (\w+)', re.M)


def _classes():
    for path in sorted(PACKAGE.glob('*.py')):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                yield path.name, node


def _own_names(cls):
    """Methods, properties and class attributes, plus what __init__ assigns to self."""
    names = set()
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(item.name)
        elif isinstance(item, ast.Assign):
            names.update(t.id for t in item.targets if isinstance(t, ast.Name))
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names.add(item.target.id)
    for item in cls.body:
        if isinstance(item, ast.FunctionDef) and item.name == '__init__':
            for node in ast.walk(item):
                if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                        and isinstance(node.value, ast.Name) and node.value.id == 'self'):
                    names.add(node.attr)
    return names


def test_no_mixins_and_every_self_attribute_comes_from_init():
    problems = []
    for filename, cls in _classes():
        assert not cls.name.endswith('Mixin'), cls.name
        if any(isinstance(b, ast.Name) and b.id in ('Exception', 'NeutronAPIError')
               or isinstance(b, ast.Attribute) for b in cls.bases):
            # Exceptions and NamedTuples/library subclasses: their base defines them.
            continue
        own = _own_names(cls)
        for node in ast.walk(cls):
            if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)
                    and isinstance(node.value, ast.Name) and node.value.id == 'self'
                    and node.attr not in own):
                problems.append('%s:%s.%s' % (filename, cls.name, node.attr))
    assert problems == []


def test_class_names_are_unique_in_the_tree():
    tree_root = PACKAGE.parent.parent
    mine = {cls.name for _f, cls in _classes()}
    clashes = {}
    for path in tree_root.rglob('*.py'):
        if PACKAGE in path.parents or 'tests' in path.parts:
            continue
        # A regular expression, not a parse: the whole tree is large.
        for name in _CLASS.findall(path.read_text()):
            if name in mine:
                clashes[name] = str(path.relative_to(tree_root))
    assert clashes == {}

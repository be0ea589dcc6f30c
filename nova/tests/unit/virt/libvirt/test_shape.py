"""The libvirt driver's shape: collaborator parts, not mixins; each says what it uses."""

import ast
import pathlib

from nova.virt import driver as virt_driver
from nova.virt.libvirt import driver as libvirt_driver

NOVA = pathlib.Path(virt_driver.__file__).resolve().parents[1]
VIRT = NOVA / 'virt'


def _classes(paths):
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                yield path, node


def _product_files(root):
    return sorted(p for p in root.rglob('*.py') if 'tests' not in p.parts)


def _base_names(cls):
    return [b.attr if isinstance(b, ast.Attribute) else getattr(b, 'id', '')
            for b in cls.bases]


def test_no_mixins_in_virt():
    found = ['%s:%s' % (path.name, cls.name) for path, cls in _classes(_product_files(VIRT))
             if cls.name.endswith('Mixin') or
             any(name.endswith('Mixin') for name in _base_names(cls))]
    assert found == []


def test_virt_class_names_are_unique_in_the_tree():
    virt = {cls.name: path for path, cls in _classes(_product_files(VIRT))}
    seen = {}
    for path, cls in _classes(_product_files(NOVA)):
        if cls.name in virt:
            seen.setdefault(cls.name, []).append(str(path.relative_to(NOVA)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


def _own_names(cls):
    """Methods, properties and class attributes of ``cls``, and what its
    __init__ assigns to self."""
    names = set()
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        if isinstance(node, ast.FunctionDef) and node.name == '__init__':
            for sub in ast.walk(node):
                if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name)
                        and sub.value.id == 'self' and isinstance(sub.ctx, ast.Store)):
                    names.add(sub.attr)
    return names


def _family_classes():
    return [(path, cls) for path, cls in _classes(_product_files(VIRT / 'libvirt'))
            if cls.name.startswith('Libvirt')]


def test_the_parts_are_the_families_of_the_driver():
    names = {cls.name for _path, cls in _family_classes()}
    assert {'LibvirtDriver', 'LibvirtCore', 'LibvirtBuild', 'LibvirtPower',
            'LibvirtRescue', 'LibvirtVolumes', 'LibvirtLiveMigrate',
            'LibvirtResize'} <= names


def test_every_self_attribute_a_part_reads_is_its_own():
    """A family never reaches a sibling through ``self``: what it uses arrives
    in its __init__ (or is its own method, property or class attribute)."""
    found = []
    for path, cls in _family_classes():
        own = _own_names(cls)
        for node in ast.walk(cls):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id == 'self' and node.attr not in own):
                found.append('%s.%s reads self.%s (line %d)'
                             % (path.stem, cls.name, node.attr, node.lineno))
    assert found == []


def _driver_class():
    tree = ast.parse(pathlib.Path(libvirt_driver.__file__).read_text())
    return next(n for n in tree.body if isinstance(n, ast.ClassDef)
                and n.name == 'LibvirtDriver')


def test_the_driver_delegates_one_line_per_method():
    cls = _driver_class()
    parts = _own_names(cls)
    found = []
    for node in cls.body:
        if not isinstance(node, ast.FunctionDef) or node.name == '__init__':
            continue
        body = node.body
        call = body[0].value if len(body) == 1 and isinstance(body[0], ast.Return) else None
        target = call.func if isinstance(call, ast.Call) else None
        if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Attribute)
                and isinstance(target.value.value, ast.Name)
                and target.value.value.id == 'self' and target.value.attr in parts):
            found.append(node.name)
    assert found == [], 'not a one-line delegation to a part'


def test_the_driver_answers_the_whole_interface():
    interface = {name for name, value in vars(virt_driver.ComputeDriver).items()
                 if callable(value) and not name.startswith('_')} - {'instance_exists'}
    delegated = {n.name for n in _driver_class().body if isinstance(n, ast.FunctionDef)}
    assert interface - delegated == set()
    # Anything else it answers is one of the calls the manager looks up first.
    optional = {'start_lifecycle_events', 'stop_lifecycle_events', 'list_own_domains',
                'set_admin_password', 'get_vnc_console', 'get_spice_console',
                'get_serial_console'}
    assert delegated - interface - {'__init__'} == optional

"""Layers point down only: what each part of the tree may import, checked on the source."""

import ast
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]   # the nova package


def _module(path):
    parts = path.relative_to(ROOT.parent).with_suffix('').parts
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


def _imports(path, top_level_only=False):
    """Every nova module ``path`` imports (inside functions too, unless top_level_only)."""
    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else ast.walk(tree)
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                yield '%s.%s' % (node.module, alias.name)


def _files(pattern):
    return sorted(p for p in ROOT.glob(pattern) if 'tests' not in p.parts)


# (files, packages they must never import, why)
RULES = [
    ('compute/manager*.py', ('nova.db', 'nova.conductor', 'nova.api'),
     'nova-compute holds no database credentials: the conductor reads and writes for it'),
    ('compute/conductor_db.py', ('nova.db', 'nova.conductor', 'nova.api'),
     'the compute side of the conductor calls is given its transport'),
    ('virt/**/*.py', ('nova.api', 'nova.db', 'nova.conductor', 'nova.compute.api'),
     'the driver sits below the compute manager'),
    ('virt/*.py', ('nova.virt.libvirt',),
     'driver-neutral modules (the API applies some of them) import no driver'),
    ('conductor/*.py', ('nova.api', 'nova.virt', 'nova.compute.manager'),
     'the conductor never drives a hypervisor'),
    ('db/*.py', ('nova.api', 'nova.compute', 'nova.conductor', 'nova.virt', 'nova.metadata'),
     'the database layer is the bottom'),
    ('network/*.py', ('nova.api', 'nova.compute', 'nova.conductor', 'nova.virt', 'nova.db'),
     'the API, the conductor, the compute host and the driver call the network package'),
    ('metadata/*.py', ('nova.api', 'nova.db', 'nova.compute', 'nova.conductor', 'nova.virt',
                       'nova.network'),
     'what a guest is told is decided below both the config drive (virt) and the metadata '
     'API, from records handed in (a database handle, never the database layer itself)'),
    ('api/metadata/*.py', ('nova.virt', 'nova.compute', 'nova.conductor', 'nova.api.handlers',
                           'nova.db'),
     'the metadata API reads through the database handle it is given, never a driver'),
]


@pytest.mark.parametrize('pattern,forbidden,why', RULES, ids=[r[0] for r in RULES])
def test_no_upward_imports(pattern, forbidden, why):
    files = _files(pattern)
    assert files, pattern
    found = ['%s imports %s' % (_module(path), name) for path in files
             for name in _imports(path)
             if any(name == f or name.startswith(f + '.') for f in forbidden)]
    assert found == [], why


def test_no_module_level_import_cycles():
    _assert_no_import_cycles(top_level_only=True)


def test_no_import_cycles_through_function_level_imports():
    # A function-level import hides a cycle from the import system, not from
    # the reader: the mixins of compute.api once imported compute.api.
    _assert_no_import_cycles(top_level_only=False)


def _assert_no_import_cycles(top_level_only):
    modules = {_module(p): p for p in _files('**/*.py')}
    graph = {}
    for name, path in modules.items():
        deps = set()
        for imported in _imports(path, top_level_only=top_level_only):
            while imported and imported not in modules:
                imported = imported.rpartition('.')[0]
            if imported and imported != name:
                deps.add(imported)
        graph[name] = deps
    cycles = [c for c in _strongly_connected(graph) if len(c) > 1]
    assert cycles == []


def _strongly_connected(graph):
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for dep in graph.get(node, ()):
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in on_stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            found.append(frozenset(component))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_building_nova_compute_loads_no_database_layer():
    """What nova-compute imports to build its service: no SQLAlchemy, no nova.db."""
    code = (
        'import sys\n'
        'from nova import conf, objects, wiring\n'
        'from nova.cmd import compute\n'
        'from nova.compute import manager\n'
        'from nova.virt.libvirt import driver\n'
        'c = conf.new_config()\n'
        "c.set_override('transport_url', 'fake:/')\n"
        'objects.register_all()\n'
        'wiring.compute_db(c)\n'
        "print(sorted(m for m in sys.modules if m.startswith(('sqlalchemy', 'nova.db', "
        "'oslo_db.sqlalchemy', 'nova.conductor.compute_db', 'nova.api'))))\n")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         cwd=ROOT.parent, check=True).stdout
    assert out.strip() == '[]'


def test_the_api_and_conductor_processes_load_no_driver():
    """What nova-api and nova-conductor import to serve: no module of a virt driver."""
    code = (
        'import importlib, pkgutil, sys\n'
        'from nova import conf, objects, wiring\n'
        'import nova.api, nova.compute, nova.conductor\n'
        'c = conf.new_config()\n'
        "c.set_override('transport_url', 'fake:/')\n"
        "c.set_override('connection', 'sqlite://', group='database')\n"
        'objects.register_all()\n'
        'wiring.api_app(c, wiring.database(c))\n'
        'wiring.conductor_service(c, wiring.database(c))\n'
        "names = ['nova.cmd.api', 'nova.cmd.conductor']\n"
        'for pkg in (nova.api, nova.conductor):\n'
        "    names += [m.name for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.')]\n"
        "names += ['nova.compute.' + m.name for m in pkgutil.iter_modules(nova.compute.__path__)\n"
        "          if m.name.startswith('api')]\n"
        'for name in names:\n'
        '    importlib.import_module(name)\n'
        "assert 'nova.api.handlers.servers' in sys.modules\n"
        "print(sorted(m for m in sys.modules if m.startswith('nova.virt.libvirt')))\n")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         cwd=ROOT.parent, check=True).stdout
    assert out.strip().splitlines()[-1] == '[]'


# Names that exist only in REST bodies. The handlers turn bodies into typed
# requests (nova/compute/server_requests.py); the compute tier never sees them.
REST_ONLY_NAMES = {
    'flavorRef', 'imageRef', 'adminPass', 'accessIPv4', 'accessIPv6', 'OS-DCF:diskConfig',
    'block_device_mapping_v2', 'os:scheduler_hints', 'OS-SCH-HNT:scheduler_hints',
    'return_reservation_id',
}


def _rest_names(path):
    """(line, name) of every string constant in ``path`` that is a REST-only name.

    Whole constants only: a message such as 'Missing imageRef attribute' names
    the field for the user and reads nothing.
    """
    return [(node.lineno, node.value) for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Constant) and node.value in REST_ONLY_NAMES]


def test_compute_tier_reads_no_rest_body_names():
    found = ['%s:%d %s' % (_module(path), line, name) for path in _files('compute/*.py')
             for line, name in _rest_names(path)]
    assert found == [], 'build a typed request in the handler (nova/compute/server_requests.py)'


def test_rest_body_names_check_sees_the_handlers():
    # The check above is only worth something if it finds the names where they belong.
    names = {name for path in _files('api/handlers/*.py') for _line, name in _rest_names(path)}
    assert {'flavorRef', 'imageRef', 'OS-DCF:diskConfig', 'block_device_mapping_v2'} <= names

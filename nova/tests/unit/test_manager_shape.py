"""The compute manager and the conductor are collaborators: each part says what it uses."""

import ast
import inspect
import pathlib

import pytest

from nova import conf as nova_conf
from nova.compute import manager as compute_manager
from nova.compute import manager_core
from nova.compute import rpcapi as compute_rpcapi
from nova.conductor import manager as conductor_manager
from nova.conductor import rpc_target
from nova.conductor import rpcapi as conductor_rpcapi

ROOT = pathlib.Path(__file__).resolve().parents[2]   # the nova package
PARTS = {'compute manager': sorted(ROOT.glob('compute/manager*.py')),
         'conductor': sorted(ROOT.glob('conductor/*.py'))}
CLIENTS = {'compute manager': sorted(ROOT.glob('compute/rpcapi*.py')),
           'conductor': [ROOT / 'conductor' / 'rpcapi.py']}
# The classes held to the shape: the parts and the compute RPC client.
SHAPED = dict(PARTS, **{'compute rpc client': CLIENTS['compute manager']})


def _classes(paths):
    for path in paths:
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                yield path, node


def _self_attrs(node, ctx):
    return {n.attr for n in ast.walk(node)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
            and n.value.id == 'self' and isinstance(n.ctx, ctx)}


def _getattr_names(node):
    """The constant names read with ``getattr(self, 'name', ...)``."""
    return {n.args[1].value for n in ast.walk(node)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            and n.func.id == 'getattr' and len(n.args) >= 2
            and isinstance(n.args[0], ast.Name) and n.args[0].id == 'self'
            and isinstance(n.args[1], ast.Constant)}


def _own_names(cls):
    """Methods, properties and class attributes defined in the class body."""
    names = set()
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(item.name)
        elif isinstance(item, ast.Assign):
            names |= {t.id for t in item.targets if isinstance(t, ast.Name)}
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names.add(item.target.id)
    return names


def _init(cls):
    return next((item for item in cls.body
                 if isinstance(item, ast.FunctionDef) and item.name == '__init__'), None)


@pytest.mark.parametrize('part', sorted(SHAPED))
def test_no_mixins(part):
    found = ['%s: %s' % (path.name, cls.name) for path, cls in _classes(SHAPED[part])
             if cls.name.endswith('Mixin') or any(
                 (getattr(base, 'attr', None) or getattr(base, 'id', '')).endswith('Mixin')
                 for base in cls.bases)]
    assert found == []


@pytest.mark.parametrize('part', sorted(SHAPED))
def test_every_name_a_class_reads_is_its_own_or_set_in_its_init(part):
    """A family reaches a sibling only through the collaborator it was handed."""
    found = []
    for path, cls in _classes(SHAPED[part]):
        init = _init(cls)
        declared = _own_names(cls) | (_self_attrs(init, ast.Store) if init else set())
        read = _self_attrs(cls, ast.Load) | _getattr_names(cls)
        found += ['%s: %s reads self.%s' % (path.name, cls.name, name)
                  for name in sorted(read - declared)]
    assert found == []


@pytest.mark.parametrize('part', sorted(SHAPED))
def test_notified_methods_live_on_classes_holding_the_core(part):
    """``notify.instance_action`` reads conf, host and the conductor proxy from ``self.core``."""
    found = []
    for path, cls in _classes(SHAPED[part]):
        notified = [item.name for item in cls.body if isinstance(item, ast.FunctionDef)
                    and any('instance_action' in ast.unparse(d) for d in item.decorator_list)]
        init = _init(cls)
        if notified and 'core' not in (_self_attrs(init, ast.Store) if init else set()):
            found.append('%s: %s (%s)' % (path.name, cls.name, ', '.join(notified)))
    assert found == []


def test_class_names_are_unique_in_the_tree():
    names = {}
    for path in ROOT.glob('**/*.py'):
        if 'tests' in path.parts:
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                names.setdefault(node.name, []).append(str(path.relative_to(ROOT)))
    ours = {str(p.relative_to(ROOT)) for paths in SHAPED.values() for p in paths}
    clashes = {name: paths for name, paths in names.items()
               if len(paths) > 1 and ours & set(paths)}
    assert clashes == {}


def _rpc_methods(paths):
    """The method names the client sends: ``cast``/``call(context, 'name', ...)``."""
    names = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and len(node.args) >= 2 and \
                    isinstance(node.args[0], ast.Name) and node.args[0].id == 'context' and \
                    isinstance(node.args[1], ast.Constant) and \
                    isinstance(node.args[1].value, str):
                names.add(node.args[1].value)
    return names


def _conf():
    conf = nova_conf.new_config()
    conf.set_override('transport_url', 'fake:/')
    conf.set_override('host', 'h1')
    return conf


def _endpoints(part):
    conf = _conf()
    if part == 'conductor':
        mgr = conductor_manager.ConductorManager(conf, db=None, compute_rpcapi=None)
        return mgr.endpoints, conductor_rpcapi.ConductorAPI.VERSION, rpc_target.TARGET
    mgr = compute_manager.ComputeManager(conf, db=None, driver=None)
    return mgr.endpoints, compute_rpcapi.ComputeAPI.VERSION, manager_core.RPC_TARGET


@pytest.mark.parametrize('part', sorted(PARTS))
def test_each_rpc_method_is_served_by_exactly_one_endpoint(part):
    endpoints, _version, _target = _endpoints(part)
    methods = _rpc_methods(CLIENTS[part])
    assert len(methods) > 4
    served = {name: [type(e).__name__ for e in endpoints if callable(getattr(e, name, None))]
              for name in methods}
    assert {name: owners for name, owners in served.items() if len(owners) != 1} == {}


@pytest.mark.parametrize('part', sorted(PARTS))
def test_no_method_name_is_on_two_endpoints(part):
    """oslo.messaging hands a message to the first endpoint with the name: no shadowing."""
    endpoints, _version, _target = _endpoints(part)
    owners = {}
    for endpoint in endpoints:
        for name, _member in inspect.getmembers(endpoint, inspect.ismethod):
            if not name.startswith('_'):
                owners.setdefault(name, []).append(type(endpoint).__name__)
    assert {name: names for name, names in owners.items() if len(names) > 1} == {}


@pytest.mark.parametrize('part', sorted(PARTS))
def test_every_endpoint_serves_the_clients_version(part):
    endpoints, version, target = _endpoints(part)
    assert target.version == version
    assert [type(e).__name__ for e in endpoints if e.target is not target] == []

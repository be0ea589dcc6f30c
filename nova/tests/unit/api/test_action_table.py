"""The server action table of the router is what POST /servers/{id}/action serves."""

import ast
import json
import pathlib

import pytest
import webob
from oslo_utils import uuidutils

import nova.api
from nova import conf as nova_conf
from nova import policy
from nova.api import auth, deploy, router
from nova.api import microversion as mv
from nova.api.handlers import server_actions
from nova.compute import api as compute_api_mod

ADMIN = {'X-Identity-Status': 'Confirmed', 'X-User-Id': 'admin', 'X-Project-Id': 'p',
         'X-Roles': 'reader,member,admin'}


@pytest.fixture
def app(db):
    conf = nova_conf.new_config()
    policy.init(conf)
    compute = compute_api_mod.API(conf, db, image_api=None, conductor_api=None,
                                  compute_rpcapi=None)
    return auth.KeystoneContext(deploy.ComputeApp(conf, compute))


def _action(app, name, version):
    req = webob.Request.blank('/v2.1/servers/%s/action' % uuidutils.generate_uuid(),
                              method='POST', headers=dict(
                                  ADMIN, **{'OpenStack-API-Version': 'compute ' +
                                            mv.as_string(version)}))
    req.body = json.dumps({name: {}}).encode()
    req.content_type = 'application/json'
    resp = req.get_response(app)
    return resp.status_int, resp.json


def _no_such_action(body):
    return 'There is no such action' in json.dumps(body)


def test_every_action_in_the_table_is_served_in_its_range(app):
    assert len(router.SERVER_ACTIONS) >= 30
    for name, method in router.SERVER_ACTIONS.items():
        for version in {method.min_version, method.max_version}:
            status, body = _action(app, name, version)
            # The action is found: the request fails on its body or the missing server.
            assert status in (400, 404) and not _no_such_action(body), (name, version, body)


def test_an_action_outside_its_range_is_not_found(app):
    limited = {n: m for n, m in router.SERVER_ACTIONS.items() if m.max_version < mv.MAX}
    assert 'os-getVNCConsole' in limited
    for name, method in limited.items():
        above = mv.parse(mv.VERSIONS[[mv.parse(v) for v, _s in mv.VERSIONS].index(
            method.max_version) + 1][0])
        status, body = _action(app, name, above)
        assert status == 404 and _no_such_action(body), (name, body)


def test_unknown_and_upstream_only_actions(app):
    status, body = _action(app, 'bogus', mv.MAX)
    assert status == 400 and _no_such_action(body)
    unserved = server_actions.UPSTREAM_ONLY - set(router.SERVER_ACTIONS)
    assert 'evacuate' in router.SERVER_ACTIONS and 'evacuate' not in unserved
    for name in unserved:
        # Upstream knows these: the server is looked up first.
        status, body = _action(app, name, mv.MAX)
        assert status == 404 and 'could not be found' in json.dumps(body), (name, body)


def test_no_handler_registers_routes_by_side_effect():
    root = pathlib.Path(nova.api.__file__).parent
    calls = []
    for path in sorted(root.glob('**/*.py')):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == 'register'):
                calls.append('%s:%d' % (path.name, node.lineno))
    assert calls == []

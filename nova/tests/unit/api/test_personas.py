"""Upstream's personas through the real API app: admin, project member, project reader."""

import json

import pytest
import webob

from nova import conf as nova_conf
from nova import policy
from nova.api import auth, deploy
from nova.compute import api as compute_api_mod
from nova.db import api as db_api

ADMIN = ('admin-user', 'admin-project', 'reader,member,admin')
MEMBER_A = ('alice', 'pa', 'reader,member')
MEMBER_B = ('bob', 'pb', 'reader,member')
READER_A = ('rita', 'pa', 'reader')


@pytest.fixture
def app(db):
    conf = nova_conf.new_config()
    policy.init(conf)
    compute = compute_api_mod.API(conf, db, image_api=None, conductor_api=None,
                                  compute_rpcapi=None)
    # What keystonemiddleware validated arrives as headers; KeystoneContext
    # turns them into the context every handler sees.
    return auth.KeystoneContext(deploy.ComputeApp(conf, compute))


@pytest.fixture
def server_a(db):
    """A server of project pa that never reached a host."""
    return db.instance_create(dict(
        project_id='pa', user_id='alice', vm_state='building', task_state='scheduling',
        display_name='vm-a', created_at=db_api._now(), flavor={'flavorid': '1'}))['uuid']


def _call(app, who, method, path, body=None, version='2.1'):
    user, project, roles = who
    req = webob.Request.blank('/v2.1' + path, method=method, headers={
        'X-Identity-Status': 'Confirmed', 'X-User-Id': user, 'X-Project-Id': project,
        'X-Roles': roles, 'OpenStack-API-Version': 'compute ' + version})
    if body is not None:
        req.body = json.dumps(body).encode()
        req.content_type = 'application/json'
    resp = req.get_response(app)
    return resp.status_int, (resp.json if resp.body else None)


def test_reader_reads_but_cannot_write(app, server_a):
    assert _call(app, READER_A, 'GET', '/servers/' + server_a)[0] == 200
    assert _call(app, READER_A, 'GET', '/servers')[0] == 200
    status, body = _call(app, READER_A, 'POST', '/servers', {'server': {
        'name': 'x', 'imageRef': 'i', 'flavorRef': '1'}})
    assert status == 403, body
    assert 'os_compute_api:servers:create' in body['forbidden']['message']
    assert _call(app, READER_A, 'DELETE', '/servers/' + server_a)[0] == 403
    assert _call(app, READER_A, 'PUT', '/servers/' + server_a,
                 {'server': {'name': 'y'}})[0] == 403


def test_member_of_another_project_gets_404(app, server_a):
    for method, body in (('GET', None), ('DELETE', None),
                         ('PUT', {'server': {'name': 'y'}})):
        status, _b = _call(app, MEMBER_B, method, '/servers/' + server_a, body)
        assert status == 404, method
    status, body = _call(app, MEMBER_B, 'GET', '/servers')
    assert body['servers'] == []
    # all_tenants is for administrators.
    assert _call(app, MEMBER_B, 'GET', '/servers?all_tenants=1')[0] == 403


def test_admin_acts_on_any_project(app, server_a):
    status, body = _call(app, ADMIN, 'GET', '/servers/' + server_a)
    assert status == 200 and body['server']['tenant_id'] == 'pa'
    status, body = _call(app, ADMIN, 'GET', '/servers?all_tenants=1')
    assert [s['id'] for s in body['servers']] == [server_a]
    # Without all_tenants an admin lists its own project, as upstream.
    assert _call(app, ADMIN, 'GET', '/servers')[1]['servers'] == []
    assert _call(app, ADMIN, 'DELETE', '/servers/' + server_a)[0] == 204
    assert _call(app, MEMBER_A, 'GET', '/servers/' + server_a)[0] == 404


def test_owner_member_acts_on_its_server(app, server_a):
    assert _call(app, MEMBER_A, 'GET', '/servers/' + server_a)[0] == 200
    assert _call(app, MEMBER_A, 'DELETE', '/servers/' + server_a)[0] == 204


def test_flavor_management_and_is_public_filter(app):
    flavor = {'flavor': {'name': 'private', 'id': 'priv', 'ram': 64, 'vcpus': 1,
                         'disk': 0, 'os-flavor-access:is_public': False}}
    assert _call(app, MEMBER_A, 'POST', '/flavors', flavor)[0] == 403
    assert _call(app, ADMIN, 'POST', '/flavors', flavor)[0] == 200

    def names(who, query):
        return [f['id'] for f in _call(app, who, 'GET', '/flavors' + query)[1]['flavors']]
    assert names(ADMIN, '?is_public=false') == ['priv']
    assert 'priv' in names(ADMIN, '?is_public=none')
    assert 'priv' not in names(ADMIN, '')
    # Non-admins see public flavors only, whatever they ask for.
    assert 'priv' not in names(MEMBER_A, '?is_public=false')
    assert _call(app, MEMBER_A, 'DELETE', '/flavors/priv')[0] == 403
    assert _call(app, ADMIN, 'DELETE', '/flavors/priv')[0] == 202


def test_admin_is_the_policy_decision():
    from nova import context as nova_context
    ctx = nova_context.RequestContext(user_id='u', project_id='p', roles=['admin'])
    assert nova_context.check_is_admin(ctx)
    ctx = nova_context.RequestContext(user_id='admin', project_id='p', roles=['member'])
    assert not nova_context.check_is_admin(ctx)

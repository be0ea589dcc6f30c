"""A cast the broker refuses: 503, and what the compute API wrote for it is undone."""

import json

import oslo_messaging as messaging
import pytest
import webob
from amqp import exceptions as amqp_exc
from oslo_utils import timeutils

from nova import conf as nova_conf
from nova import context as nova_context
from nova import exception, policy
from nova import vm_states as vs
from nova.api import auth, deploy
from nova.compute import api as compute_api_mod
from nova.compute import api_handoff, server_requests

ADMIN = {'X-Identity-Status': 'Confirmed', 'X-User-Id': 'admin', 'X-Project-Id': 'p1',
         'X-Roles': 'reader,member,admin', 'OpenStack-API-Version': 'compute 2.100'}


class RefusingBroker:
    """Every RPC method raises what oslo.messaging raises when the vhost is refused.

    The broker is the one part a unit test cannot run; the functional test
    (test_broker_faults.py) revokes a real vhost's permissions.
    """

    class client:  # noqa: N801 - stands where the RPC client is read
        version_cap = None

        @staticmethod
        def can_send_version(version):
            return True

    def __init__(self, error=None):
        self.sent = []
        self.error = error or messaging.MessageDeliveryFailure(
            "Basic.publish: (403) ACCESS_REFUSED - access to exchange 'nova' in vhost "
            "'faults' refused for user 'guest'")

    def __getattr__(self, name):
        if name == 'error':
            raise AttributeError(name)

        def send(*args, **kwargs):
            self.sent.append(name)
            raise self.error
        return send


class Images:
    """The image service's answers the families read, and the images they make and drop."""

    def __init__(self):
        self.created, self.deleted = [], []

    def show(self, context, image_id):
        return {'id': image_id, 'status': 'active', 'disk_format': 'qcow2',
                'container_format': 'bare', 'properties': {}, 'min_disk': 0, 'min_ram': 0}

    def create(self, context, values):
        image = dict(values, id='img-%d' % len(self.created), status='queued')
        self.created.append(image['id'])
        return image

    def delete(self, context, image_id):
        self.deleted.append(image_id)


@pytest.fixture
def stack(db):
    conf = nova_conf.new_config()
    conf.set_override('allow_resize_to_same_host', True)
    policy.init(conf)
    broker, images = RefusingBroker(), Images()
    compute = compute_api_mod.API(conf, db, image_api=images, conductor_api=broker,
                                  compute_rpcapi=broker)
    return db, compute, broker, images


FLAVOR = {'id': 1, 'flavorid': '1', 'name': 'tiny', 'vcpus': 1, 'memory_mb': 64,
          'root_gb': 1, 'ephemeral_gb': 0, 'swap': 0, 'extra_specs': {}}


def _server(db, vm_state=vs.ACTIVE, task_state=None, **values):
    base = dict(project_id='p1', user_id='u1', vm_state=vm_state, task_state=task_state,
                display_name='vm', host='h1', node='h1', image_ref='base-image',
                flavor=FLAVOR, vcpus=1, memory_mb=64, root_gb=1, system_metadata={},
                launched_at=timeutils.utcnow().replace(tzinfo=None))
    base.update(values)
    return db.instance_create(base)


def _ctx():
    return nova_context.RequestContext(user_id='u1', project_id='p1', is_admin=True,
                                       roles=['admin'])


def _resized(db, row):
    db.migration_create({'instance_uuid': row['uuid'], 'status': 'finished',
                         'migration_type': 'resize', 'source_compute': 'h1',
                         'dest_compute': 'h1', 'source_node': 'h1', 'dest_node': 'h1'})


# (name, vm_state of the server, call on the compute API, columns expected back)
CASES = [
    ('rescue', vs.ACTIVE, lambda c, ctx, i: c.rescue.rescue(ctx, i)),
    ('unrescue', vs.RESCUED, lambda c, ctx, i: c.rescue.unrescue(ctx, i)),
    ('stop', vs.ACTIVE, lambda c, ctx, i: c.actions.power_action(ctx, i, 'stop')),
    ('start', vs.STOPPED, lambda c, ctx, i: c.actions.power_action(ctx, i, 'start')),
    ('reboot', vs.ACTIVE, lambda c, ctx, i: c.actions.power_action(ctx, i, 'reboot_soft')),
    ('reboot', vs.STOPPED, lambda c, ctx, i: c.actions.power_action(ctx, i, 'reboot_hard')),
    ('pause', vs.ACTIVE, lambda c, ctx, i: c.actions.power_action(ctx, i, 'pause')),
    ('suspend', vs.ACTIVE, lambda c, ctx, i: c.actions.power_action(ctx, i, 'suspend')),
    ('resume', vs.SUSPENDED, lambda c, ctx, i: c.actions.power_action(ctx, i, 'resume')),
    ('createImage', vs.ACTIVE, lambda c, ctx, i: c.actions.snapshot(ctx, i, 'snap', {})),
    ('createBackup', vs.ACTIVE,
     lambda c, ctx, i: c.actions.snapshot(ctx, i, 'bk', {}, backup=('daily', 1))),
    ('shelve', vs.ACTIVE, lambda c, ctx, i: c.shelve.shelve(ctx, i)),
    ('shelveOffload', vs.SHELVED, lambda c, ctx, i: c.shelve.shelve_offload(ctx, i)),
    ('unshelve', vs.SHELVED, lambda c, ctx, i: c.shelve.unshelve(ctx, i)),
    ('unshelve', vs.SHELVED_OFFLOADED, lambda c, ctx, i: c.shelve.unshelve(ctx, i)),
    ('resize', vs.ACTIVE, lambda c, ctx, i: c.resize.migrate(ctx, i)),
    ('revertResize', vs.RESIZED, lambda c, ctx, i: c.resize.revert_resize(ctx, i)),
    ('confirmResize', vs.RESIZED, lambda c, ctx, i: c.resize.confirm_resize(ctx, i)),
    ('delete', vs.ACTIVE, lambda c, ctx, i: c.deletion.hard_delete(ctx, i)),
    ('delete', vs.ACTIVE, lambda c, ctx, i: c.deletion.soft_delete(ctx, i)),
    ('restore', vs.SOFT_DELETED, lambda c, ctx, i: c.deletion.restore(ctx, i)),
    ('changePassword', vs.ACTIVE,
     lambda c, ctx, i: c.password.set_admin_password(ctx, i, 'pw')),
]


@pytest.mark.parametrize('name,vm_state,call', CASES,
                         ids=['%s-%s' % (n, v) for n, v, _c in CASES])
def test_a_send_the_broker_refuses_is_undone(stack, name, vm_state, call):
    db, compute, broker, images = stack
    row = _server(db, vm_state=vm_state)
    if vm_state == vs.RESIZED:
        _resized(db, row)
    with pytest.raises(api_handoff.RequestNotSent) as caught:
        call(compute, _ctx(), row)
    assert caught.value.code == 503 and broker.sent
    assert 'Nothing was changed; try again' in caught.value.format_message()
    after = db.instance_get(row['uuid'])
    assert (after['vm_state'], after['task_state']) == (vm_state, None)
    assert after['deleted_at'] is None
    # The action says it ended in error, and why; no fault: nothing failed on the server.
    action = db.actions_get(row['uuid'], limit=1)[0]
    assert action['message'] == 'Error' and action['finish_time'] is not None
    events = db.events_get(action['id'])
    assert [(e['event'], e['result']) for e in events] == [(api_handoff.EVENT, 'Error')]
    assert 'MessageDeliveryFailure' in events[0]['details']
    assert db.faults_latest([row['uuid']]) == {}
    # Images made for the request are gone; a migration record is not left open.
    assert sorted(images.created) == sorted(images.deleted)
    for migration in db.migration_list({'instance_uuid': row['uuid']}):
        assert migration['status'] in ('error', 'finished'), migration


def test_a_live_migration_not_sent_closes_its_migration(stack):
    db, compute, broker, images = stack
    for host in ('h1', 'h2'):
        db.service_heartbeat(host, 'nova-compute', 'compute')
    row = _server(db)
    with pytest.raises(api_handoff.RequestNotSent) as caught:
        compute.live_migration.live_migrate(_ctx(), row)
    assert 'nova-conductor' in caught.value.format_message()
    assert db.instance_get(row['uuid'])['task_state'] is None
    [migration] = db.migration_list({'instance_uuid': row['uuid']})
    assert migration['status'] == 'error'
    assert db.actions_get(row['uuid'], limit=1)[0]['message'] == 'Error'


def test_a_rebuild_not_sent_keeps_the_old_image_and_name(stack):
    db, compute, broker, images = stack
    row = _server(db, system_metadata={'image_min_disk': '0'})
    request = server_requests.RebuildRequest(image_ref='new-image', name='renamed')
    with pytest.raises(api_handoff.RequestNotSent):
        compute.rebuild.rebuild(_ctx(), row, request)
    after = db.instance_get(row['uuid'])
    assert (after['task_state'], after['image_ref'], after['display_name']) == \
        (None, 'base-image', 'vm')
    assert after['system_metadata'] == {'image_min_disk': '0'}


def test_a_create_not_sent_leaves_no_server(stack):
    db, compute, broker, images = stack
    ctx = _ctx()
    db.flavor_create(dict(FLAVOR, id=None, flavorid='f1', name='f1'))
    request = server_requests.BootRequest(name='new', flavor_ref='f1', image_ref='base-image',
                                          networks='none')
    with pytest.raises(api_handoff.RequestNotSent):
        compute.servers.create(ctx, request)
    assert db.instance_get_all({'project_id': 'p1'}) == []


def test_a_refusal_before_the_send_sends_nothing_and_keeps_the_state(stack):
    db, compute, broker, images = stack
    row = _server(db, task_state=vs.REBOOTING)
    with pytest.raises(exception.InstanceInvalidState):
        compute.rescue.rescue(_ctx(), row)
    assert broker.sent == [] and db.instance_get(row['uuid'])['task_state'] == vs.REBOOTING


def test_the_rollback_leaves_a_task_someone_else_set(stack):
    db, compute, broker, images = stack
    row = _server(db)

    def refused_after_a_delete(*args, **kwargs):
        # A delete took the server (it ignores the task state) before the send failed.
        db.instance_update(row['uuid'], {'task_state': vs.DELETING})
        raise messaging.MessageDeliveryFailure('refused')

    compute.rescue._compute_rpcapi = type('B', (), {
        'rescue_instance': staticmethod(refused_after_a_delete)})()
    with pytest.raises(api_handoff.RequestNotSent):
        compute.rescue.rescue(_ctx(), row)
    assert db.instance_get(row['uuid'])['task_state'] == vs.DELETING


def test_a_remote_error_or_a_call_timeout_is_not_undone():
    assert not api_handoff.undelivered(messaging.RemoteError('X', 'boom'))
    assert not api_handoff.undelivered(messaging.MessagingTimeout('no reply'))
    assert not api_handoff.undelivered(ValueError('a bug'))
    assert api_handoff.undelivered(messaging.MessageDeliveryFailure('403'))
    assert api_handoff.undelivered(messaging.MessageUndeliverable(None, None, None, None))
    assert api_handoff.undelivered(ConnectionResetError())


def test_the_api_answers_503_with_the_reason(stack):
    db, compute, broker, images = stack
    row = _server(db)
    app = auth.KeystoneContext(deploy.ComputeApp(nova_conf.new_config(), compute))
    req = webob.Request.blank('/v2.1/servers/%s/action' % row['uuid'], method='POST',
                              headers=ADMIN)
    req.body = json.dumps({'rescue': {}}).encode()
    req.content_type = 'application/json'
    resp = req.get_response(app)
    assert resp.status_int == 503, resp.body
    message = resp.json['serviceUnavailable']['message']
    assert 'could not be sent to nova-compute' in message and 'try again' in message
    assert db.instance_get(row['uuid'])['task_state'] is None


def test_a_bus_error_no_family_handles_is_a_503_not_a_500(stack):
    db, compute, broker, images = stack
    row = _server(db)
    app = auth.KeystoneContext(deploy.ComputeApp(nova_conf.new_config(), compute))
    req = webob.Request.blank('/v2.1/servers/%s/action' % row['uuid'], method='POST',
                              headers=ADMIN)
    req.body = json.dumps({'os-getConsoleOutput': {}}).encode()
    req.content_type = 'application/json'
    resp = req.get_response(app)
    assert resp.status_int == 503, resp.body
    assert 'message bus' in resp.json['serviceUnavailable']['message']


# What a new connection to a virtual host the user may no longer open raises:
# oslo.messaging lets the AMQP client's own error through.
NOT_ALLOWED = amqp_exc.NotAllowed(
    "Connection.open: (530) NOT_ALLOWED - access to vhost 'faults' refused for user 'guest'")


def test_the_amqp_clients_refusal_of_a_connection_is_not_sent():
    assert api_handoff.undelivered(NOT_ALLOWED)
    assert api_handoff.undelivered(amqp_exc.AccessRefused('login refused'))


@pytest.mark.parametrize('body', [{'rescue': {}}, {'os-getConsoleOutput': {}}])
def test_a_connection_the_broker_refuses_is_a_503_and_undone(stack, body):
    db, compute, broker, images = stack
    broker.error = NOT_ALLOWED
    row = _server(db)
    app = auth.KeystoneContext(deploy.ComputeApp(nova_conf.new_config(), compute))
    req = webob.Request.blank('/v2.1/servers/%s/action' % row['uuid'], method='POST',
                              headers=ADMIN)
    req.body = json.dumps(body).encode()
    req.content_type = 'application/json'
    resp = req.get_response(app)
    assert resp.status_int == 503, resp.body
    assert 'NotAllowed' in resp.json['serviceUnavailable']['message']
    assert db.instance_get(row['uuid'])['task_state'] is None


def test_a_create_on_a_refused_connection_leaves_no_server(stack):
    db, compute, broker, images = stack
    broker.error = NOT_ALLOWED
    db.flavor_create(dict(FLAVOR, id=None, flavorid='f1', name='f1'))
    request = server_requests.BootRequest(name='new', flavor_ref='f1', image_ref='base-image',
                                          networks='none')
    with pytest.raises(api_handoff.RequestNotSent):
        compute.servers.create(_ctx(), request)
    assert db.instance_get_all({'project_id': 'p1'}) == []

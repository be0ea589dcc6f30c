"""nova.network against a real Neutron 29 (ML2/OVN) and Keystone: every request rule, ports made,
bound and removed, nothing left behind.

Needs the Keystone of tools/keystone.sh and the Neutron of tools/neutron.sh (its
neutron.env names the chassis host ports are bound to); skips when either is missing.
Each test module works in projects of its own and deletes what it made.
"""

import os
import shlex
import urllib.request
import uuid

import pytest

from nova import conf as nova_conf
from nova import context as nova_context
from nova import exception
from nova.network import model
from nova.network import neutron as network_neutron
from nova.tests.functional import keystone
from nova.tests.functional import keystone_fixture as kf

ENV_FILE = os.path.join(os.environ.get('NOVA_COMPAT_DIR', '/var/lib/nova-compat'),
                        'neutron.env')
_NET = {'service_type': 'network', 'interface': 'public'}


def _neutron_env():
    values = {}
    if os.path.exists(ENV_FILE):
        with open(ENV_FILE) as handle:
            for line in handle:
                if line.startswith('export '):
                    key, _sep, value = line[len('export '):].strip().partition('=')
                    values[key] = shlex.split(value)[0] if value else ''
    values.update({k: v for k, v in os.environ.items() if k.startswith('NOVA_NEUTRON_')})
    return values


ENV = _neutron_env()
NEUTRON_URL = ENV.get('NOVA_NEUTRON_URL', 'http://127.0.0.1:9696')
HOST = ENV.get('NOVA_NEUTRON_HOST', 'vm')


def _require_neutron():
    keystone.require_keystone()
    try:
        with urllib.request.urlopen(NEUTRON_URL, timeout=3) as resp:
            ok = resp.status == 200
    except OSError:
        ok = False
    if not ok:
        pytest.skip('Neutron not answering at %s (start it with tools/neutron.sh, or set '
                    'NOVA_NEUTRON_URL)' % NEUTRON_URL)


class Admin:
    """Neutron calls as Keystone's admin, for setting up and counting."""

    def __init__(self):
        self.session = keystone.admin_session()
        self.undo = []

    def call(self, method, path, body=None, ok=(200, 201, 204)):
        resp = self.session.request('/v2.0' + path, method, endpoint_filter=_NET, json=body,
                                    raise_exc=False)
        assert resp.status_code in ok, (method, path, resp.status_code, resp.text)
        return resp.json() if resp.text else None

    def make(self, collection, body, undo=True):
        key = collection.rstrip('s').replace('-', '_')
        if collection == 'security-groups':
            key = 'security_group'
        obj = self.call('POST', '/' + collection, {key: body})[key]
        if undo:
            self.undo.append(('/%s/%s' % (collection, obj['id'])))
        return obj

    def ports(self, **filters):
        query = '&'.join('%s=%s' % kv for kv in filters.items())
        return self.call('GET', '/ports?' + query)['ports']

    def cleanup(self):
        """Undo in reverse order; a failure does not stop the rest."""
        undo, self.undo = self.undo, []
        failures = []
        for path in reversed(undo):
            try:
                self._undo_one(path)
            except Exception as exc:  # noqa: BLE001 - keep deleting the rest
                failures.append('%s: %s' % (path, exc))
        assert not failures, failures

    def _undo_one(self, path):
        if path.startswith('/routers/') and path.endswith(':interfaces'):
            router, subnet = path[len('/routers/'):-len(':interfaces')].split('/')
            self.call('PUT', '/routers/%s/remove_router_interface' % router,
                      {'subnet_id': subnet}, ok=(200, 404))
            return
        self.call('DELETE', path, ok=(204, 404, 409))


def make_conf(**neutron):
    conf = nova_conf.new_config()
    nova_conf.register_client_opts(conf, 'neutron')
    from keystoneauth1 import loading
    conf.register_opts(loading.get_auth_plugin_conf_options('password'), group='neutron')
    values = {'auth_type': 'password', 'auth_url': keystone.KEYSTONE_URL,
              'username': keystone.SERVICE_USER, 'password': keystone.PASSWORD,
              'project_name': keystone.SERVICE_PROJECT, 'user_domain_name': 'Default',
              'project_domain_name': 'Default', 'region_name': keystone.REGION,
              'valid_interfaces': ['public'], 'http_retries': 0}
    values.update(neutron)
    for name, value in values.items():
        conf.set_override(name, value, group='neutron')
    conf.set_override('host', HOST)
    return conf


def _catalog(user, project):
    session = keystone._session(user['name'], project['name'])
    access = session.auth.get_access(session)
    return access.auth_token, access.service_catalog.catalog


@pytest.fixture(scope='module')
def env():
    _require_neutron()
    ks = kf.Keystone()
    ks.project_ids = []
    make_project = ks.project

    def project(base):
        made = make_project(base)
        ks.project_ids.append(made['id'])
        return made
    ks.project = project
    admin = Admin()
    try:
        pa, pb, pc = ks.project('neta'), ks.project('netb'), ks.project('netc')
        alice = ks.user('alice', pa, ['member', 'reader'])
        bob = ks.user('bob', pb, ['member', 'reader'])
        carol = ks.user('carol', pc, ['member', 'reader'])

        def ctx(user, project):
            token, catalog = _catalog(user, project)
            return nova_context.RequestContext(
                user_id=user['id'], project_id=project['id'], auth_token=token,
                service_catalog=catalog, roles=['member', 'reader'], overwrite=False)

        e = type('Env', (), {})()
        e.admin, e.ks = admin, ks
        e.pa, e.pb, e.pc = pa, pb, pc
        e.alice, e.bob, e.carol = ctx(alice, pa), ctx(bob, pb), ctx(carol, pc)
        e.net = admin.make('networks', {'name': 'net-a', 'tenant_id': pa['id']})
        e.subnet = admin.make('subnets', {'network_id': e.net['id'], 'ip_version': 4,
                                          'cidr': '10.211.7.0/24', 'tenant_id': pa['id'],
                                          'dns_nameservers': ['10.211.7.3']})
        e.empty = admin.make('networks', {'name': 'net-empty', 'tenant_id': pa['id']})
        e.bob_net = admin.make('networks', {'name': 'net-b', 'tenant_id': pb['id']})
        e.bob_subnet = admin.make('subnets', {'network_id': e.bob_net['id'], 'ip_version': 4,
                                              'cidr': '10.211.8.0/24', 'tenant_id': pb['id']})
        e.api = network_neutron.NetworkAPI(make_conf())
        yield e
    finally:
        try:
            admin.cleanup()
            # Neutron made each project's default security group on its first call.
            for project_id in ks.project_ids:
                for group in admin.call('GET', '/security-groups?tenant_id=%s' % project_id,
                                        ok=(200,))['security_groups']:
                    admin.call('DELETE', '/security-groups/%s' % group['id'],
                               ok=(204, 404, 409))
        finally:
            # Even with Neutron gone, the throwaway projects and users go.
            ks.cleanup()


def server(env, project, hostname='vm-a', **fields):
    values = {'uuid': str(uuid.uuid4()), 'project_id': project['id'], 'hostname': hostname,
              'availability_zone': 'nova', 'host': HOST, 'network_info': []}
    values.update(fields)
    return values


def _requested(*items):
    return list(items)


# -- before the 202 -------------------------------------------------------------

def test_validate_a_named_network_and_the_default_one(env):
    validate = env.api.validation.validate_networks
    assert validate(env.alice, _requested({'uuid': env.net['id']}), 3) == 3
    assert validate(env.bob, None, 2) == 2          # bob's only network
    assert validate(env.alice, 'none', 5) == 5
    # alice sees net-a and net-empty: which one would the NIC be on?
    with pytest.raises(exception.NetworkAmbiguous) as caught:
        validate(env.alice, None, 1)
    assert caught.value.code == 409


@pytest.mark.parametrize('case', ['missing', 'others', 'no_subnet', 'outside', 'taken',
                                  'external'])
def test_validate_refuses_bad_networks(env, case):
    validate = env.api.validation.validate_networks
    expected = {'missing': (exception.NetworkNotFound, 400),
                'others': (exception.NetworkNotFound, 400),
                'no_subnet': (exception.NetworkRequiresSubnet, 400),
                'outside': (exception.FixedIpInvalid, 400),
                'taken': (exception.FixedIpAlreadyInUse, 400),
                'external': (exception.ExternalNetworkAttachForbidden, 403)}[case]
    request = {'missing': {'uuid': str(uuid.uuid4())},
               'others': {'uuid': env.bob_net['id']},
               'no_subnet': {'uuid': env.empty['id']},
               'outside': {'uuid': env.net['id'], 'fixed_ip': '10.99.0.5'},
               'taken': {'uuid': env.net['id'], 'fixed_ip': '10.211.7.77'},
               'external': {'uuid': ENV.get('NOVA_NEUTRON_PUBLIC_NETWORK_ID', '')}}[case]
    if case == 'external' and not request['uuid']:
        pytest.skip('neutron.env names no public network')
    if case == 'taken':
        env.admin.make('ports', {'network_id': env.net['id'], 'tenant_id': env.pa['id'],
                                 'device_id': 'someone',
                                 'fixed_ips': [{'ip_address': '10.211.7.77'}]})
    with pytest.raises(expected[0]) as caught:
        validate(env.alice, [request], 1)
    assert caught.value.code == expected[1]


@pytest.mark.parametrize('case', ['missing', 'in_use', 'others'])
def test_validate_refuses_bad_ports(env, case):
    if case == 'missing':
        port_id, error = str(uuid.uuid4()), exception.PortNotFound
    elif case == 'in_use':
        port_id = env.admin.make('ports', {'network_id': env.net['id'],
                                           'tenant_id': env.pa['id'],
                                           'device_id': str(uuid.uuid4())})['id']
        error = exception.PortInUse
    else:
        port_id = env.admin.make('ports', {'network_id': env.bob_net['id'],
                                           'tenant_id': env.pb['id']})['id']
        error = exception.PortNotUsable
    with pytest.raises(error) as caught:
        env.api.validation.validate_networks(env.alice, [{'port': port_id}], 1)
    assert caught.value.code == {'in_use': 409}.get(case, 400)


def test_port_quota_bounds_max_count(env):
    env.admin.call('PUT', '/quotas/%s' % env.pc['id'], {'quota': {'port': 3}})
    env.admin.undo.append('/quotas/%s' % env.pc['id'])
    net = env.admin.make('networks', {'name': 'net-c', 'tenant_id': env.pc['id']})
    env.admin.make('subnets', {'network_id': net['id'], 'ip_version': 4,
                               'cidr': '10.211.9.0/24', 'tenant_id': env.pc['id']})
    validate = env.api.validation.validate_networks
    # OVN gives the network a metadata port of carol's project: 2 of 3 left.
    used = len(env.admin.ports(tenant_id=env.pc['id']))
    assert validate(env.carol, [{'uuid': net['id']}], 5) == 3 - used
    assert validate(env.carol, [{'uuid': net['id']}, {'uuid': net['id']}], 5) == (3 - used) // 2
    # Neutron refuses a limit below the ports in use; at the limit no server fits,
    # which the compute API answers with PortLimitExceeded (403).
    env.admin.call('PUT', '/quotas/%s' % env.pc['id'], {'quota': {'port': used}})
    assert validate(env.carol, [{'uuid': net['id']}], 2) == 0
    assert validate(env.carol, 'none', 2) == 2


def test_get_me_a_network(env, tmp_path):
    # A project with no network: Neutron's dry run passes on this stack (a default
    # external network and subnet pool exist), then the real call makes one.
    project = env.ks.project('netauto')
    user = env.ks.user('dave', project, ['member', 'reader'])
    token, catalog = _catalog(user, project)
    ctx = nova_context.RequestContext(user_id=user['id'], project_id=project['id'],
                                      auth_token=token, service_catalog=catalog,
                                      roles=['member', 'reader'], overwrite=False)
    assert env.api.validation.validate_networks(ctx, 'auto', 1) == 1
    with pytest.raises(exception.NetworkAmbiguous):
        env.api.validation.validate_networks(env.alice, 'auto', 1)
    inst = server(env, project, hostname='vm-auto')
    try:
        nw_info = env.api.ports.allocate_for_instance(ctx, inst, 'auto', bind_host_id=HOST)
        assert len(nw_info) == 1 and nw_info[0]['network']['subnets']
        inst['network_info'] = nw_info
        env.api.ports.deallocate_for_instance(ctx, inst)
    finally:
        env.admin.call('DELETE', '/auto-allocated-topology/%s' % project['id'],
                       ok=(204, 404))


# -- on the compute host --------------------------------------------------------

def test_allocate_bind_and_deallocate(env):
    user_port = env.admin.make('ports', {'network_id': env.net['id'], 'tenant_id': env.pa['id'],
                                         'name': 'alices-own'})
    inst = server(env, env.pa)
    before = {p['id'] for p in env.admin.ports(tenant_id=env.pa['id'])}
    nw_info = env.api.ports.allocate_for_instance(
        env.alice, inst, [{'uuid': env.net['id'], 'fixed_ip': '10.211.7.50', 'tag': 'first'},
                          {'port': user_port['id'], 'tag': 'own'}], bind_host_id=HOST)
    created, own = nw_info
    assert own['id'] == user_port['id'] and own['preserve_on_delete'] is True
    assert created['preserve_on_delete'] is False and model.tag(created) == 'first'
    assert model.tag(own) == 'own'
    assert [ip['address'] for ip in model.fixed_ips(created)] == ['10.211.7.50']
    assert created['type'] == 'ovs' and created['devname'] == model.devname(created['id'])
    assert created['network']['label'] == 'net-a' and created['network']['bridge'] == 'br-int'
    assert created['network']['meta']['mtu'] and created['network']['meta']['tunneled']
    assert created['details'].get('datapath_type') == ENV.get('NOVA_NEUTRON_DATAPATH_TYPE',
                                                              'netdev')
    sub = created['network']['subnets'][0]
    assert sub['cidr'] == '10.211.7.0/24' and sub['meta'].get('dhcp_server')
    assert [d['address'] for d in sub['dns']] == ['10.211.7.3']
    assert list(model.addresses(nw_info)) == ['net-a']
    for port in env.admin.ports(device_id=inst['uuid']):
        assert port['device_owner'] == 'compute:nova'
        assert port['binding:host_id'] == HOST
        assert port['tenant_id'] == env.pa['id']
        assert port['binding:vif_type'] == 'ovs'
        assert port['dns_name'] == 'vm-a'
    after = {p['id'] for p in env.admin.ports(tenant_id=env.pa['id'])}
    assert after - before == {created['id']}

    # Refreshing from Neutron keeps what only the cache knows.
    inst['network_info'] = nw_info
    assert env.api.info.build(env.alice, inst) == nw_info

    env.api.ports.deallocate_for_instance(env.alice, inst)
    assert {p['id'] for p in env.admin.ports(tenant_id=env.pa['id'])} == before
    kept = env.admin.call('GET', '/ports/%s' % user_port['id'])['port']
    assert kept['device_id'] == '' and kept['device_owner'] == ''
    assert not kept['binding:host_id'] and kept['dns_name'] == ''


def test_a_failed_allocation_leaves_nothing_behind(env):
    user_port = env.admin.make('ports', {'network_id': env.net['id'], 'tenant_id': env.pa['id']})
    env.admin.make('ports', {'network_id': env.net['id'], 'tenant_id': env.pa['id'],
                             'fixed_ips': [{'ip_address': '10.211.7.60'}]})
    inst = server(env, env.pa)
    before = sorted(p['id'] for p in env.admin.ports(network_id=env.net['id']))
    with pytest.raises(exception.FixedIpAlreadyInUse):
        env.api.ports.allocate_for_instance(
            env.alice, inst, [{'port': user_port['id']}, {'uuid': env.net['id']},
                              {'uuid': env.net['id'], 'fixed_ip': '10.211.7.60'}],
            bind_host_id=HOST)
    assert sorted(p['id'] for p in env.admin.ports(network_id=env.net['id'])) == before
    assert env.admin.ports(device_id=inst['uuid']) == []
    assert env.admin.call('GET', '/ports/%s' % user_port['id'])['port']['device_id'] == ''


def test_binding_to_an_unknown_host_fails_and_cleans_up(env):
    inst = server(env, env.pa)
    with pytest.raises(exception.PortBindingFailed):
        env.api.ports.allocate_for_instance(env.alice, inst, [{'uuid': env.net['id']}],
                                            bind_host_id='no-such-chassis')
    assert env.admin.ports(device_id=inst['uuid']) == []


def test_neutron_unreachable_is_a_503_and_is_retried(env):
    api = network_neutron.NetworkAPI(make_conf(endpoint_override='http://127.0.0.1:9'))
    api.ports._sleep = lambda _seconds: None
    inst = server(env, env.pa)
    with pytest.raises(exception.NetworkServiceError) as caught:
        api.ports.allocate_for_instance(env.alice, inst, [{'uuid': env.net['id']}],
                                        bind_host_id=HOST, retries=2)
    assert caught.value.code == 503
    with pytest.raises(exception.NetworkServiceError):
        api.validation.validate_networks(env.alice, None, 1)


def test_user_token_and_admin(env):
    # bob cannot see alice's network with his token; the admin client can.
    with pytest.raises(exception.NetworkNotFound):
        env.api.networks.get(env.bob, env.net['id'])
    assert env.api.networks.get(env.bob, env.net['id'], admin=True)['id'] == env.net['id']
    assert {n['id'] for n in env.api.networks.list(env.bob)} >= {env.bob_net['id']}
    assert env.net['id'] not in {n['id'] for n in env.api.networks.list(env.bob)}
    # Ports created for a server are alice's, made with her token.
    inst = server(env, env.pa)
    nw_info = env.api.ports.allocate_for_instance(env.alice, inst, [{'uuid': env.net['id']}],
                                                  bind_host_id=HOST)
    try:
        with pytest.raises(exception.PortNotFound):
            env.api.networks.show_port(env.bob, nw_info[0]['id'])
        assert env.api.networks.show_port(env.alice, nw_info[0]['id'])['tenant_id'] == \
            env.pa['id']
    finally:
        inst['network_info'] = nw_info
        env.api.ports.deallocate_for_instance(env.alice, inst)


def test_interface_attach_and_detach(env):
    inst = server(env, env.pb, hostname='vm-b')
    nw_info = env.api.ports.allocate_for_instance(env.bob, inst, None, bind_host_id=HOST)
    inst['network_info'] = nw_info
    try:
        assert len(nw_info) == 1
        nw_info, vif = env.api.ports.allocate_port_for_instance(
            env.bob, inst, network_id=env.bob_net['id'], tag='hot', bind_host_id=HOST)
        inst['network_info'] = nw_info
        assert [v['id'] for v in nw_info][1] == vif['id'] and model.tag(vif) == 'hot'
        assert env.admin.call('GET', '/ports/%s' % vif['id'])['port']['binding:host_id'] == HOST
        nw_info = env.api.ports.deallocate_port_for_instance(env.bob, inst, vif['id'])
        assert [v['id'] for v in nw_info] == [inst['network_info'][0]['id']]
        with pytest.raises(exception.PortNotFound):
            env.api.networks.show_port(env.bob, vif['id'])
        inst['network_info'] = nw_info
    finally:
        env.api.ports.deallocate_for_instance(env.bob, inst)
    assert env.admin.ports(device_id=inst['uuid']) == []


def test_attach_without_a_network_to_pick(env):
    project = env.ks.project('netnone')
    user = env.ks.user('erin', project, ['member', 'reader'])
    token, catalog = _catalog(user, project)
    ctx = nova_context.RequestContext(user_id=user['id'], project_id=project['id'],
                                      auth_token=token, service_catalog=catalog,
                                      roles=['member', 'reader'], overwrite=False)
    with pytest.raises(exception.InterfaceAttachFailedNoNetwork) as caught:
        env.api.ports.allocate_port_for_instance(ctx, server(env, project), bind_host_id=HOST)
    assert caught.value.code == 400
    # A server create without networks simply gets no NIC.
    assert env.api.ports.allocate_for_instance(ctx, server(env, project), None,
                                               bind_host_id=HOST) == []


def test_security_groups_by_name_on_create_and_on_the_server(env):
    sgs = env.api.security_groups
    web = sgs.create(env.bob, 'web', 'web servers')
    env.admin.undo.append('/security-groups/%s' % web['id'])
    assert web['name'] == 'web' and web['project_id'] == env.pb['id']
    assert sgs.validate_for_create(env.bob, ['default', 'web']) == ['default', web['id']]
    with pytest.raises(exception.SecurityGroupNotFoundForProject) as caught:
        sgs.validate_for_create(env.bob, ['nope'])
    assert caught.value.code == 400
    inst = server(env, env.pb, hostname='vm-sg')
    nw_info = env.api.ports.allocate_for_instance(env.bob, inst, None, security_groups=['web'],
                                                  bind_host_id=HOST)
    inst['network_info'] = nw_info
    try:
        assert sgs.instance_security_groups(env.bob, inst) == [{'name': 'web'}]
        db = sgs.create(env.bob, 'db', '')
        env.admin.undo.append('/security-groups/%s' % db['id'])
        sgs.add_to_instance(env.bob, inst, 'db')
        assert {g['name'] for g in sgs.instance_security_groups(env.bob, inst)} == {'web', 'db'}
        sgs.remove_from_instance(env.bob, inst, 'web')
        assert sgs.instance_security_groups(env.bob, inst) == [{'name': 'db'}]
        with pytest.raises(exception.SecurityGroupNotFound):
            sgs.remove_from_instance(env.bob, inst, 'web')
        dup = sgs.create(env.bob, 'db', 'a second one')
        env.admin.undo.append('/security-groups/%s' % dup['id'])
        with pytest.raises(exception.NoUniqueMatch):
            sgs.add_to_instance(env.bob, inst, 'db')
        rules = sgs.add_rules(env.bob, web['id'], [sgs_rule(web['id'])])
        assert rules[0]['protocol'] == 'tcp' and rules[0]['from_port'] == 22
        assert rules[0]['cidr'] == '0.0.0.0/0'
        with pytest.raises(exception.SecurityGroupRuleExists):
            sgs.add_rules(env.bob, web['id'], [sgs_rule(web['id'])])
    finally:
        env.api.ports.deallocate_for_instance(env.bob, inst)


def sgs_rule(group_id):
    from nova.network import security_groups
    return security_groups.neutron_rule(group_id, 'tcp', 22, 22, cidr='0.0.0.0/0')


def test_bindings_move_with_the_server(env):
    inst = server(env, env.pb, hostname='vm-move')
    nw_info = env.api.ports.allocate_for_instance(env.bob, inst, None, bind_host_id=HOST)
    inst['network_info'] = nw_info
    port_id = nw_info[0]['id']
    try:
        assert env.api.bindings.supports_port_binding_extension(env.bob)
        env.api.bindings.unbind_instance_ports(env.bob, inst)      # shelve offload
        port = env.admin.call('GET', '/ports/%s' % port_id)['port']
        assert not port['binding:host_id'] and port['device_id'] == inst['uuid']
        env.api.bindings.bind_instance_ports(env.bob, inst, HOST)   # unshelve
        port = env.admin.call('GET', '/ports/%s' % port_id)['port']
        assert port['binding:host_id'] == HOST and port['binding:vif_type'] == 'ovs'
        env.api.bindings.setup_networks_on_host(env.bob, inst, 'elsewhere')
        port = env.admin.call('GET', '/ports/%s' % port_id)['port']
        assert port['binding:profile'] == {'migrating_to': 'elsewhere'}
        env.api.bindings.setup_networks_on_host(env.bob, inst, teardown=True)
        assert env.admin.call('GET', '/ports/%s' % port_id)['port']['binding:profile'] == {}
        with pytest.raises(exception.PortBindingFailed):
            env.api.bindings.bind_ports_to_host(env.bob, inst, 'no-such-chassis')
        env.api.bindings.delete_port_binding(env.bob, port_id, 'no-such-chassis')
    finally:
        env.api.ports.deallocate_for_instance(env.bob, inst)


def test_live_migration_bindings_go_there_and_back(env):
    """A live migration's bindings: the destination's is activated and the
    source's deleted, so the server can move back; a stale inactive binding on
    a destination (a crash between the two steps) is replaced, not a refusal."""
    other = ENV.get('NOVA_NEUTRON_HOST_2')
    if not other:
        pytest.skip('the test Neutron runs one chassis (NOVA_NEUTRON_CHASSIS)')
    inst = server(env, env.pb, hostname='vm-live')
    nw_info = env.api.ports.allocate_for_instance(env.bob, inst, None, bind_host_id=HOST)
    inst['network_info'] = nw_info
    port_id = nw_info[0]['id']
    try:
        for source, dest in ((HOST, other), (other, HOST)):
            made = env.api.bindings.bind_ports_to_host(env.bob, inst, dest)
            assert made[port_id]['status'] == 'INACTIVE'
            active = env.api.bindings.migrate_instance_start(env.bob, inst, dest)
            assert active == [port_id]
            env.api.bindings.delete_source_bindings(env.bob, active, source)
            bindings = env.admin.call('GET', '/ports/%s/bindings' % port_id)['bindings']
            assert [(b['host'], b['status']) for b in bindings] == [(dest, 'ACTIVE')]
            assert env.admin.call('GET', '/ports/%s' % port_id)['port']['binding:host_id'] == dest
            inst['host'] = dest
        # The first one stays behind, as after a crash; the second replaces it.
        env.api.bindings.bind_ports_to_host(env.bob, inst, other)
        made = env.api.bindings.bind_ports_to_host(env.bob, inst, other)
        assert (made[port_id]['host'], made[port_id]['status']) == (other, 'INACTIVE')
        bindings = env.admin.call('GET', '/ports/%s/bindings' % port_id)['bindings']
        assert sorted((b['host'], b['status']) for b in bindings) == sorted(
            [(HOST, 'ACTIVE'), (other, 'INACTIVE')])
    finally:
        env.api.ports.deallocate_for_instance(env.bob, inst)


def test_floating_ips(env):
    public = ENV.get('NOVA_NEUTRON_PUBLIC_NETWORK_NAME')
    if not public:
        pytest.skip('neutron.env names no public network')
    fips = env.api.floating_ips
    assert public in fips.pools(env.bob)
    with pytest.raises(exception.FloatingIpPoolNotFound):
        fips.allocate(env.bob, 'no-such-pool')
    with pytest.raises(exception.FloatingIpNotFound):
        fips.get(env.bob, str(uuid.uuid4()))
    router = env.admin.make('routers', {'name': 'r-b', 'tenant_id': env.pb['id'],
                                        'external_gateway_info': {
                                            'network_id': ENV['NOVA_NEUTRON_PUBLIC_NETWORK_ID']}})
    env.admin.call('PUT', '/routers/%s/add_router_interface' % router['id'],
                   {'subnet_id': env.bob_subnet['id']})
    env.admin.undo.append('/routers/%s/%s:interfaces' % (router['id'], env.bob_subnet['id']))
    inst = server(env, env.pb, hostname='vm-fip')
    inst['network_info'] = env.api.ports.allocate_for_instance(env.bob, inst, None,
                                                               bind_host_id=HOST)
    fip = fips.allocate(env.bob, public)
    try:
        fixed = model.fixed_ips(inst['network_info'][0])[0]['address']
        with pytest.raises(exception.FixedIpNotFoundForAddress):
            fips.associate(env.bob, inst, fip['floating_ip_address'], '10.211.8.254')
        assert fips.associate(env.bob, inst, fip['floating_ip_address'], fixed) is None
        view = floating_view(fips.get_by_address(env.bob, fip['floating_ip_address']))
        assert view == {'id': fip['id'], 'ip': fip['floating_ip_address'], 'pool': public,
                        'fixed_ip': fixed, 'instance_id': inst['uuid']}
        assert [f['id'] for f in fips.list(env.bob)] == [fip['id']]
        nw_info = env.api.info.build(env.bob, inst)
        assert model.addresses(nw_info)['net-b'][-1] == {
            'version': 4, 'addr': fip['floating_ip_address'], 'OS-EXT-IPS:type': 'floating',
            'OS-EXT-IPS-MAC:mac_addr': nw_info[0]['address']}
        fips.disassociate(env.bob, fip['floating_ip_address'])
        with pytest.raises(exception.FloatingIpNotAssociated):
            fips.disassociate(env.bob, fip['floating_ip_address'])
    finally:
        fips.release(env.bob, fip['id'])
        env.api.ports.deallocate_for_instance(env.bob, inst)
    with pytest.raises(exception.FloatingIpNotFoundForAddress):
        fips.get_by_address(env.bob, fip['floating_ip_address'])


def floating_view(fip):
    from nova.network import floating_ips
    return floating_ips.to_nova_view(fip)

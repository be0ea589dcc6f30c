"""openstacksdk's network proxy, a real client, against the embedded network endpoint."""

import openstack
import pytest
from openstack import exceptions as sdk_exc

from nova.tests.unit.embedded.network import network_server as ns


@pytest.fixture(scope='module')
def server(tmp_path_factory):
    srv = ns.NetworkServer(str(tmp_path_factory.mktemp('network')))
    yield srv
    srv.stop()


def _connect(server, token):
    return openstack.connect(auth_type='admin_token', auth={'token': token,
                                                           'endpoint': server.url},
                             network_endpoint_override=server.url,
                             load_yaml_config=False, load_envvars=False)


@pytest.fixture
def conn(server):
    connection = _connect(server, 'sdk:sdk')
    yield connection
    connection.close()


@pytest.fixture
def admin_conn(server):
    connection = _connect(server, 'admin:admin')
    yield connection
    connection.close()


def test_sdk_networks_subnets_ports(conn, admin_conn, server):
    net = conn.network.find_network('private', ignore_missing=False)
    assert net.id == server.network['id'] and net.is_shared
    assert net.subnet_ids == [server.subnet['id']]
    mine = conn.network.create_network(name='sdk-net')
    subnet = conn.network.create_subnet(network_id=mine.id, ip_version=4,
                                        cidr='192.168.50.0/24', name='sdk-sub',
                                        dns_nameservers=['192.168.50.53'])
    assert subnet.gateway_ip == '192.168.50.1' and subnet.is_dhcp_enabled
    assert conn.network.find_subnet('sdk-sub').id == subnet.id
    port = conn.network.create_port(network_id=mine.id, name='sdk-port')
    assert port.fixed_ips[0]['subnet_id'] == subnet.id
    assert port.status == 'DOWN' and port.security_group_ids
    assert conn.network.get_port(port.id).name == 'sdk-port'
    assert [p.id for p in conn.network.ports(network_id=mine.id)] == [port.id]
    # The administrator binds it, as Nova's compute host does.
    bound = admin_conn.network.update_port(port, binding_host_id='compute-1',
                                           device_owner='compute:nova')
    assert bound.binding_vif_type == 'tap'
    assert bound.binding_vif_details['bridge_name'] == 'br-aio'
    # The user does not see the binding details.
    assert conn.network.get_port(port.id).binding_vif_type is None
    conn.network.delete_port(port, ignore_missing=False)
    with pytest.raises(sdk_exc.ResourceNotFound):
        conn.network.get_port(port.id)
    with pytest.raises(sdk_exc.ConflictException):
        conn.network.create_port(network_id=mine.id, fixed_ips=[
            {'ip_address': '192.168.50.1'}])
    conn.network.delete_subnet(subnet, ignore_missing=False)
    conn.network.delete_network(mine, ignore_missing=False)


def test_sdk_pagination_follows_links(conn):
    made = [conn.network.create_network(name='page-%d' % i) for i in range(5)]
    # The proxy asks for pages of two and follows networks_links to the end.
    names = [n.name for n in conn.network.networks(limit=2, sort_key='name',
                                                   sort_dir='asc')
             if n.name.startswith('page-')]
    assert names == ['page-%d' % i for i in range(5)]
    for net in made:
        conn.network.delete_network(net)


def test_sdk_security_groups_and_rules(conn):
    group = conn.network.create_security_group(name='sdk-sg', description='d')
    rule = conn.network.create_security_group_rule(
        security_group_id=group.id, direction='ingress', protocol='tcp',
        port_range_min=22, port_range_max=22, remote_ip_prefix='0.0.0.0/0')
    assert rule.protocol == 'tcp' and rule.port_range_min == 22
    with pytest.raises(sdk_exc.BadRequestException) as exc:
        conn.network.create_security_group_rule(
            security_group_id=group.id, direction='ingress', protocol='tcp',
            port_range_min=30, port_range_max=20)
    assert 'port_range_min must be <= port_range_max' in str(exc.value)
    fetched = conn.network.get_security_group(group.id)
    assert rule.id in [r['id'] for r in fetched.security_group_rules]
    conn.network.delete_security_group_rule(rule, ignore_missing=False)
    conn.network.delete_security_group(group, ignore_missing=False)
    default = conn.network.find_security_group('default', project_id='sdk')
    assert default is not None


def test_sdk_quotas(conn, admin_conn):
    quota = conn.network.get_quota('sdk')
    assert quota.networks == 100 and quota.ports == 500
    details = conn.network.get_quota('sdk', details=True)
    assert details.security_groups['used'] >= 1
    admin_conn.network.update_quota('sdk', ports=7)
    assert conn.network.get_quota('sdk').ports == 7
    admin_conn.network.delete_quota('sdk')
    assert conn.network.get_quota('sdk').ports == 500

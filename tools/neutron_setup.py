"""Register the test Neutron in Keystone, create its public network, write neutron.env.

Run by tools/neutron.sh with only the standard library:
    neutron_setup.py keystone     the neutron service user and the network endpoints
    neutron_setup.py resources    public network, subnet, default subnet pool; wait for the
                                  chassis' agents; write neutron.env and the config fragments
    neutron_setup.py deregister   remove the network endpoints (the stack is stopping)
Settings come from the NOVA_NEUTRON_* variables tools/neutron.sh exports.
"""

import json
import os
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keystone_setup  # noqa: E402  (its Keystone client and settings)

ENV = os.environ
URL = ENV.get('NOVA_NEUTRON_URL', 'http://127.0.0.1:9696').rstrip('/')
STATE = ENV.get('NOVA_NEUTRON_STATE', '/var/lib/nova-compat/neutron')
COMPAT_DIR = keystone_setup.COMPAT_DIR
REGION = keystone_setup.REGION
PUBLIC_NET = 'public'
PUBLIC_SUBNET = 'public-subnet'
SUBNET_POOL = 'shared-default-subnetpool-v4'
SUBNET_POOL_PREFIX = '10.0.0.0/16'
SUBNET_POOL_PREFIXLEN = 26
SERVICE_USER = 'neutron'


def ensure_service_user(ks):
    """The neutron user: admin (token validation) and service (nova's external events)."""
    roles = {r['name']: r['id'] for r in ks.list('roles')}
    project = next(p for p in ks.list('projects')
                   if p['name'] == 'service' and p['domain_id'] == 'default')
    users = {u['name']: u for u in ks.list('users') if u['domain_id'] == 'default'}
    if SERVICE_USER not in users:
        users[SERVICE_USER] = ks.create('users', {
            'name': SERVICE_USER, 'domain_id': 'default', 'password': keystone_setup.PASSWORD,
            'default_project_id': project['id']})
    user_id = users[SERVICE_USER]['id']
    for role in ('admin', 'service'):
        ks.call('PUT', '/projects/%s/users/%s/roles/%s' % (project['id'], user_id, roles[role]))


def ensure_endpoints(ks):
    services = {s['type']: s for s in ks.list('services')}
    if 'network' not in services:
        services['network'] = ks.create(
            'services', {'type': 'network', 'name': 'neutron', 'enabled': True})
    service_id = services['network']['id']
    endpoints = {(e['interface'], e['region_id']): e for e in ks.list('endpoints')
                 if e['service_id'] == service_id}
    for interface in keystone_setup.INTERFACES:
        found = endpoints.get((interface, REGION))
        if found is None:
            ks.create('endpoints', {'service_id': service_id, 'interface': interface,
                                    'region_id': REGION, 'url': URL, 'enabled': True})
        elif found['url'] != URL:
            ks.call('PATCH', '/endpoints/' + found['id'], {'endpoint': {'url': URL}})


def deregister(ks):
    for service in ks.list('services'):
        if service['type'] != 'network':
            continue
        for endpoint in ks.list('endpoints'):
            if endpoint['service_id'] == service['id']:
                ks.call('DELETE', '/endpoints/' + endpoint['id'])


class Neutron:
    """The Networking v2.0 calls this script needs, with the admin's token."""

    def __init__(self, token):
        self.token = token

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(URL + '/v2.0' + path, data=data, method=method)
        req.add_header('Content-Type', 'application/json')
        req.add_header('X-Auth-Token', self.token)
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                text = resp.read()
                return json.loads(text) if text else {}
        except urllib.error.HTTPError as exc:
            raise SystemExit('neutron: %s %s -> %s %s'
                             % (method, path, exc.code, exc.read()[:500]))

    def find(self, collection, **filters):
        query = '&'.join('%s=%s' % item for item in filters.items())
        return self.call('GET', '/%s?%s' % (collection, query))[collection]

    def ensure(self, collection, body, **filters):
        found = self.find(collection, **filters)
        if found:
            return found[0]
        key = collection[:-1]
        return self.call('POST', '/' + collection, {key: body})[key]


def ensure_resources(net):
    cidr = ENV.get('NOVA_NEUTRON_PUBLIC_CIDR', '172.24.4.0/24')
    gateway = ENV.get('NOVA_NEUTRON_PUBLIC_GATEWAY', '172.24.4.1')
    # The provider network whose gateway sits in the public namespace: floating IPs and
    # routers' external gateways come from it. is_default makes it get-me-a-network's.
    public = net.ensure('networks', {
        'name': PUBLIC_NET, 'router:external': True, 'is_default': True,
        'provider:network_type': 'flat', 'provider:physical_network': 'public',
        'shared': False}, name=PUBLIC_NET)
    prefix = cidr.rsplit('.', 1)[0]
    subnet = net.ensure('subnets', {
        'name': PUBLIC_SUBNET, 'network_id': public['id'], 'ip_version': 4,
        'cidr': cidr, 'gateway_ip': gateway, 'enable_dhcp': False,
        'allocation_pools': [{'start': prefix + '.10', 'end': prefix + '.250'}]},
        name=PUBLIC_SUBNET, network_id=public['id'])
    pool = net.ensure('subnetpools', {
        'name': SUBNET_POOL, 'prefixes': [SUBNET_POOL_PREFIX],
        'default_prefixlen': SUBNET_POOL_PREFIXLEN, 'is_default': True, 'shared': True},
        name=SUBNET_POOL)
    return public, subnet, pool


def wait_for_agents(net, hosts, timeout=60):
    """Each chassis' agents alive: ovn-controller (the first is the gateway) and the
    metadata agent."""
    wanted = {(host, 'OVN Metadata agent') for host in hosts}
    wanted.add((hosts[0], 'OVN Controller Gateway agent'))
    wanted.update((host, 'OVN Controller agent') for host in hosts[1:])
    deadline = time.monotonic() + timeout
    while True:
        agents = net.call('GET', '/agents')['agents']
        alive = {(a['host'], a['agent_type']) for a in agents if a['alive']}
        if wanted <= alive:
            return
        if time.monotonic() > deadline:
            raise SystemExit('neutron: agents not alive after %d s: %s (see %s)'
                             % (timeout, sorted(wanted - alive), os.path.join(STATE, 'log')))
        time.sleep(0.5)


def chassis_hosts():
    hosts = [ENV['NOVA_NEUTRON_HOST']]
    if ENV.get('NOVA_NEUTRON_CHASSIS', '1') == '2':
        hosts.append(ENV['NOVA_NEUTRON_HOST_2'])
    return hosts


def write_env(public, subnet, pool, extensions):
    secret = open(os.path.join(STATE, 'metadata-secret')).read().strip()
    hv_ns = ENV['NOVA_NEUTRON_HV_NETNS']
    venv = ENV['NOVA_NEUTRON_VENV']
    values = {
        'NOVA_NEUTRON_URL': URL,
        'NOVA_NEUTRON_HOST': ENV['NOVA_NEUTRON_HOST'],
        'NOVA_NEUTRON_HV_NETNS': hv_ns,
        'NOVA_NEUTRON_PUBLIC_NETNS': ENV['NOVA_NEUTRON_PUBLIC_NETNS'],
        'NOVA_NEUTRON_PUBLIC_PORTS': ENV.get('NOVA_NEUTRON_PUBLIC_PORTS', ''),
        'NOVA_NEUTRON_DISPLAY_PORTS': ENV.get('NOVA_NEUTRON_DISPLAY_PORTS', ''),
        'NOVA_NEUTRON_LIBVIRT_URI': ENV['NOVA_NEUTRON_LIBVIRT_URI'],
        'NOVA_NEUTRON_OVSDB': ENV['NOVA_NEUTRON_OVSDB'],
        'NOVA_NEUTRON_OVN_NB': ENV['NOVA_NEUTRON_OVN_NB'],
        'NOVA_NEUTRON_OVN_SB': ENV['NOVA_NEUTRON_OVN_SB'],
        'NOVA_NEUTRON_BRIDGE': 'br-int',
        'NOVA_NEUTRON_DATAPATH_TYPE': 'netdev',
        'NOVA_NEUTRON_PRIVSEP_HELPER': 'nsenter --net=/run/netns/%s %s/bin/privsep-helper'
                                       % (hv_ns, venv),
        'NOVA_NEUTRON_VENV': venv,
        'NOVA_NEUTRON_METADATA_HOST': '127.0.0.1',
        'NOVA_NEUTRON_METADATA_PORT': ENV['NOVA_NEUTRON_METADATA_PORT'],
        'NOVA_NEUTRON_METADATA_SECRET': secret,
        'NOVA_NEUTRON_PUBLIC_NETWORK_ID': public['id'],
        'NOVA_NEUTRON_PUBLIC_NETWORK_NAME': PUBLIC_NET,
        'NOVA_NEUTRON_PUBLIC_SUBNET_ID': subnet['id'],
        'NOVA_NEUTRON_PUBLIC_CIDR': subnet['cidr'],
        'NOVA_NEUTRON_PUBLIC_GATEWAY': subnet['gateway_ip'],
        'NOVA_NEUTRON_SUBNETPOOL_ID': pool['id'],
        'NOVA_NEUTRON_SERVICE_USER': SERVICE_USER,
        'NOVA_NEUTRON_TEMPEST_PATH': os.path.join(STATE, 'tempest-bin'),
        'NOVA_NEUTRON_NOVA_CONF': os.path.join(STATE, 'nova-neutron.conf'),
        'NOVA_NEUTRON_TEMPEST_CONF': os.path.join(STATE, 'tempest-neutron.conf'),
        'NOVA_NEUTRON_LOG_DIR': os.path.join(STATE, 'log'),
    }
    two = ENV.get('NOVA_NEUTRON_CHASSIS', '1') == '2'
    values['NOVA_NEUTRON_CHASSIS'] = '2' if two else '1'
    values['NOVA_NEUTRON_HOSTS'] = ' '.join(chassis_hosts())
    underlay = ENV.get('NOVA_NEUTRON_UNDERLAY_NET', '192.0.2')
    values['NOVA_NEUTRON_MIGRATION_ADDRESS'] = underlay + '.1' if two else '127.0.0.1'
    if two:
        hv2 = ENV['NOVA_NEUTRON_HV_NETNS_2']
        values.update({
            'NOVA_NEUTRON_HOST_2': ENV['NOVA_NEUTRON_HOST_2'],
            'NOVA_NEUTRON_HV_NETNS_2': hv2,
            'NOVA_NEUTRON_LIBVIRT_URI_2': ENV['NOVA_NEUTRON_LIBVIRT_URI_2'],
            'NOVA_NEUTRON_OVSDB_2': ENV['NOVA_NEUTRON_OVSDB_2'],
            'NOVA_NEUTRON_PRIVSEP_HELPER_2':
                'nsenter --net=/run/netns/%s %s/bin/privsep-helper' % (hv2, venv),
            'NOVA_NEUTRON_DISPLAY_PORTS_2': ENV['NOVA_NEUTRON_DISPLAY_PORTS_2'],
            'NOVA_NEUTRON_MIGRATION_ADDRESS_2': underlay + '.2',
            'NOVA_NEUTRON_NOVA_CONF_2': os.path.join(STATE, 'nova-neutron-2.conf'),
        })
    path = os.path.join(COMPAT_DIR, 'neutron.env')
    with open(path + '.part', 'w') as f:
        f.write('# The test Neutron of tools/neutron.sh (removed by its stop).\n')
        f.writelines("export %s='%s'\n" % item for item in values.items())
    common = dict(values, KEYSTONE_URL=keystone_setup.URL, PASSWORD=keystone_setup.PASSWORD,
                  REGION=REGION)
    with open(values['NOVA_NEUTRON_NOVA_CONF'], 'w') as f:
        f.write(NOVA_CONF % common)
    if two:
        # The second compute host: same [neutron] and metadata, its own chassis.
        with open(values['NOVA_NEUTRON_NOVA_CONF_2'], 'w') as f:
            f.write(NOVA_CONF % dict(common, **{
                key[:-2]: values[key] for key in values if key.endswith('_2')}))
    with open(values['NOVA_NEUTRON_TEMPEST_CONF'], 'w') as f:
        f.write(TEMPEST_CONF % dict(values, EXTENSIONS=','.join(extensions)))
    os.rename(path + '.part', path)


# Upstream nova's option names; the compute service reads what it implements.
NOVA_CONF = """\
# nova.conf settings for the test Neutron of tools/neutron.sh (add with --config-file).
[DEFAULT]
# ML2/OVN binds ports only to the chassis of this hostname.
host = %(NOVA_NEUTRON_HOST)s
# The metadata agent (in the hypervisor namespace) reaches this port through a relay.
metadata_listen = 127.0.0.1
metadata_listen_port = %(NOVA_NEUTRON_METADATA_PORT)s

[neutron]
auth_type = password
auth_url = %(KEYSTONE_URL)s
username = nova
password = %(PASSWORD)s
project_name = service
user_domain_name = Default
project_domain_name = Default
region_name = %(REGION)s
valid_interfaces = public
service_metadata_proxy = true
metadata_proxy_shared_secret = %(NOVA_NEUTRON_METADATA_SECRET)s

[libvirt]
# The libvirtd of the hypervisor namespace, where br-int and the taps are.
connection_uri = %(NOVA_NEUTRON_LIBVIRT_URI)s
virt_type = qemu
# This hypervisor's address on the underlay between the hypervisor namespaces, where an
# incoming migration stream can reach its QEMU.
live_migration_inbound_addr = %(NOVA_NEUTRON_MIGRATION_ADDRESS)s

[os_vif_ovs]
ovsdb_connection = %(NOVA_NEUTRON_OVSDB)s
ovsdb_interface = native

[vif_plug_ovs_privileged]
# os-vif's privileged calls (tap creation, MTU, device removal) in the hypervisor
# namespace; oslo.privsep appends --privsep_context and --privsep_sock_path.
helper_command = %(NOVA_NEUTRON_PRIVSEP_HELPER)s
"""

TEMPEST_CONF = """\
# tempest.conf sections for the test Neutron of tools/neutron.sh. Run tempest inside the
# public namespace (nsenter --net=/run/netns/%(NOVA_NEUTRON_PUBLIC_NETNS)s) with
# %(NOVA_NEUTRON_TEMPEST_PATH)s first in PATH (ping); the API ports are relayed there.
[service_available]
neutron = true

[network]
public_network_id = %(NOVA_NEUTRON_PUBLIC_NETWORK_ID)s
floating_network_name = %(NOVA_NEUTRON_PUBLIC_NETWORK_NAME)s
project_network_cidr = 10.100.0.0/16
project_network_mask_bits = 28
project_networks_reachable = false

[network-feature-enabled]
floating_ips = true
ipv6 = false
# What this Neutron loads ("all" makes tempest expect ML2/OVS-only ones like metering).
api_extensions = %(EXTENSIONS)s

[validation]
run_validation = true
connect_method = floating
auth_method = keypair
image_ssh_user = root
ssh_key_type = ecdsa
ip_version_for_ssh = 4
ping_timeout = 120
ssh_timeout = 300

[scenario]
dhcp_client = udhcpc
"""


def main():
    command = sys.argv[1] if len(sys.argv) > 1 else ''
    ks = keystone_setup.Keystone()
    if command == 'keystone':
        ensure_service_user(ks)
        ensure_endpoints(ks)
    elif command == 'deregister':
        deregister(ks)
    elif command == 'resources':
        net = Neutron(ks.token)
        public, subnet, pool = ensure_resources(net)
        wait_for_agents(net, chassis_hosts())
        extensions = sorted(e['alias'] for e in net.call('GET', '/extensions')['extensions'])
        write_env(public, subnet, pool, extensions)
    else:
        sys.exit('usage: neutron_setup.py keystone|resources|deregister')


if __name__ == '__main__':
    sys.exit(main())

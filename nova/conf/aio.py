"""[aio] options of the all-in-one: its endpoints, its network, the clouds.yaml it writes."""

from oslo_config import cfg

GROUP = 'aio'

opts = [
    cfg.HostAddressOpt('listen', default='127.0.0.1',
                       help='Address the all-in-one endpoints listen on.'),
    cfg.PortOpt('compute_port', default=8774,
                help='Port of the compute API.'),
    cfg.PortOpt('image_port', default=9292,
                help='Port of the embedded image (Glance v2 subset) API.'),
    cfg.PortOpt('volume_port', default=8776,
                help='Port of the embedded volume (Cinder v3 subset) API.'),
    cfg.BoolOpt('seed_flavors', default=True,
                help='Create the default m1.* flavors on first start.'),
    cfg.BoolOpt('catalog_endpoints', default=False,
                help='With [api] auth_strategy = keystone: find the embedded '
                     'image and volume endpoints in the Keystone service '
                     'catalog (register them there) instead of pointing the '
                     'compute service\'s image and volume clients at them '
                     'directly. Ignored with noauth2.'),
    cfg.URIOpt('cloud_auth_url',
               help='Keystone URL written to clouds.yaml in keystone mode. '
                    'Defaults to [keystone_authtoken] www_authenticate_uri, '
                    'then its auth_url.'),
    cfg.StrOpt('cloud_username',
               help='User name written to clouds.yaml in keystone mode. '
                    'Unset: the client takes OS_USERNAME from the '
                    'environment. No password is ever written: give it as '
                    'OS_PASSWORD.'),
    cfg.StrOpt('cloud_project_name',
               help='Project name written to clouds.yaml in keystone mode. '
                    'Unset: the client takes OS_PROJECT_NAME from the '
                    'environment.'),
    cfg.StrOpt('cloud_user_domain_name', default='Default',
               help='Domain of cloud_username in clouds.yaml.'),
    cfg.StrOpt('cloud_project_domain_name', default='Default',
               help='Domain of cloud_project_name in clouds.yaml.'),
    cfg.ListOpt('extra_compute_hosts', default=[],
                help='Names of more compute hosts to run inside the all-in-one, '
                     'beside [DEFAULT] host: one compute service per name, with its '
                     'own service and hypervisor record (reported under that name), '
                     'its own instance directory ($state_path/hosts/<name>/instances) '
                     'and RPC server, on the same libvirt connection URI. For '
                     'trying out multi-host behaviour (server group policies, '
                     'same_host/different_host hints, unshelve to a host) on one '
                     'machine.'),
    cfg.DictOpt('extra_compute_host_uris', default={},
                help='Libvirt connection URI of some of the extra compute hosts, as '
                     'NAME:URI pairs (e.g. "host2:qemu+unix:///system?socket=/var/lib/'
                     'nova-libvirt-peer/run/libvirt-sock"). A host named here uses '
                     'that libvirt daemon instead of [libvirt] connection_uri; with a '
                     'daemon of its own (tools/start-libvirtd-peer.sh) servers can be '
                     'live migrated between it and the other hosts.'),
]

network_opts = [
    cfg.BoolOpt('embedded_network', default=True,
                help='Serve the embedded network endpoint (and its data plane) and point '
                     'the [neutron] client at it. Set to false when [neutron] names a real '
                     'Neutron (its catalog entry or endpoint_override): nothing below in '
                     'this group applies then.'),
    cfg.PortOpt('network_port', default=9696,
                help='Port of the embedded network (Neutron v2.0 subset) API.'),
    cfg.BoolOpt('network_dataplane', default=True,
                help='Run the embedded network\'s data plane: a Linux bridge '
                     '([aio] network_bridge) holding the default subnet\'s gateway '
                     'address and the metadata address, dnsmasq serving DHCP to the '
                     'ports, and nftables enforcing their security groups. It needs '
                     'root (or CAP_NET_ADMIN, and CAP_SYS_ADMIN with [aio] '
                     'network_namespace) and the dnsmasq-base, dnsmasq-utils and '
                     'nftables packages; nova-aio refuses to start, saying which is '
                     'missing, rather than run without it. Set to false to serve the '
                     'network API only: ports are then ACTIVE once bound and guests '
                     'get no connectivity from the all-in-one.'),
    cfg.StrOpt('network_bridge', default='br-aio',
               regex=r'^[A-Za-z0-9_.-]{1,15}$',
               help='Name of the Linux bridge of the data plane (at most 15 '
                    'characters). nova-aio creates it and removes it at stop; a '
                    'device of that name made by something else stops the start.'),
    cfg.StrOpt('network_name', default='private',
               help='Name of the default network made on first start (shared, '
                    'owned by [aio] network_project). Servers created without '
                    '--nic attach to it.'),
    cfg.StrOpt('network_cidr', default='10.78.0.0/24',
               help='IPv4 CIDR of the default network\'s subnet, used on first '
                    'start only. The first address is the gateway and the host\'s '
                    'own address on the bridge; the others are handed out to '
                    'ports. It must not overlap the routes of the namespace the '
                    'data plane lives in.'),
    cfg.ListOpt('network_dns_servers', default=[],
                help='DNS servers handed to guests by DHCP (the default subnet\'s '
                     'dns_nameservers, set on first start). Empty: guests get none.'),
    cfg.IntOpt('network_mtu', default=1500, min=576, max=9000,
               help='MTU of networks created without one; the default network\'s '
                    'MTU, given to guests by DHCP.'),
    cfg.StrOpt('network_project', default='admin',
               help='Project owning the default network. Under noauth2 the '
                    'administrator\'s project is "admin"; with Keystone give the '
                    'administrator project\'s id.'),
    cfg.StrOpt('network_namespace',
               help='Name of an existing network namespace (ip netns add NAME) the '
                    'whole data plane lives in: the bridge, its addresses, dnsmasq '
                    'and the nftables tables. Unset: the namespace nova-aio runs in. '
                    'The guests\' taps (so libvirtd) must be in the same namespace.'),
    cfg.HostAddressOpt('metadata_address', default='169.254.169.254',
                       help='Address the metadata API listens on, in the data '
                            'plane\'s namespace. Guests always ask '
                            '169.254.169.254:80 (DHCP gives them a route to it '
                            'through the gateway); the data plane puts this address '
                            'on the bridge unless it is the gateway, and forwards '
                            'port 80 of 169.254.169.254 to it when address or port '
                            'differ.'),
    cfg.PortOpt('metadata_port', default=80,
                help='Port the metadata API listens on at [aio] metadata_address.'),
]


def register_opts(conf):
    conf.register_opts(opts + network_opts, group=GROUP)


def list_opts():
    return {GROUP: opts + network_opts}

"""[neutron] options: how the service reaches the Networking service (Neutron v2.0)."""

from oslo_config import cfg

GROUP = 'neutron'
SERVICE_TYPE = 'network'

GROUP_HELP = (
    'Configuration options for the Networking service. Calls made for a user '
    "(listing networks, creating a server's ports) carry that user's token; "
    'calls only an administrator may make (binding a port to a host, reading '
    "another project's port) use the credentials of this section (auth_type, "
    'auth_url, username, ...). The endpoint comes from the service catalog '
    '(service_type, valid_interfaces and region_name select it) or from '
    'endpoint_override.')

neutron_opts = [
    cfg.StrOpt('ovs_bridge', default='br-int',
               help='Open vSwitch integration bridge a port is plugged into '
                    "when Neutron's binding (vif_details bridge_name) names "
                    'none.'),
    cfg.StrOpt('default_floating_pool', default='nova',
               help='Name or id of the external network floating IPs are '
                    'allocated from when a request (os-floating-ips, '
                    'microversions below 2.36) names no pool.'),
    cfg.IntOpt('extension_sync_interval', default=600, min=0,
               help='Seconds the list of Neutron API extensions (DNS '
                    'integration, multiple port bindings, auto-allocated '
                    'topology...) is kept before it is read again. 0 reads it '
                    'before every operation that depends on it.'),
    cfg.ListOpt('physnets', default=[],
                help='Physical networks this host reaches. For each one listed '
                     'a section [neutron_physnet_<name>] with the option '
                     'numa_nodes (a list of NUMA node ids) says which NUMA '
                     'nodes are near its NICs; [neutron_tunnel] numa_nodes does '
                     'the same for tunnelled (overlay) networks. Guests on such '
                     'networks are kept on those nodes.'),
    cfg.IntOpt('http_retries', default=3, min=0,
               help='How many times to retry a Networking service call whose '
                    'connection could not be established. 0 disables retries. '
                    'Used unless the keystoneauth connect_retries option is '
                    'set.'),
]

metadata_proxy_opts = [
    cfg.BoolOpt('service_metadata_proxy', default=False,
                help="Neutron's metadata proxy forwards guests' metadata "
                     'requests. The metadata API then identifies the instance '
                     'from the X-Instance-ID and X-Tenant-ID headers, checked '
                     'against X-Instance-ID-Signature with '
                     'metadata_proxy_shared_secret, instead of from the '
                     "request's source address."),
    cfg.StrOpt('metadata_proxy_shared_secret', default='', secret=True,
               help="Secret shared with Neutron's metadata agent (its "
                    'metadata_proxy_shared_secret): the HMAC-SHA256 key of the '
                    'X-Instance-ID-Signature (or X-Metadata-Provider-Signature) '
                    'header of proxied metadata requests.'),
]

# [neutron_physnet_<name>] and [neutron_tunnel]; registered per host by
# register_dynamic_opts as their names come from [neutron] physnets.
numa_nodes_opt = cfg.ListOpt('numa_nodes', default=[], item_type=cfg.types.Integer(min=0),
                             help='NUMA nodes near the NICs of this network.')
TUNNEL_GROUP = 'neutron_tunnel'
PHYSNET_GROUP = 'neutron_physnet_%s'


def register_opts(conf):
    # A new OptGroup per ConfigOpts: register_group() keeps a shallow copy,
    # so a shared one would leak overrides between instances (tests).
    conf.register_group(cfg.OptGroup(GROUP, title='Neutron options', help=GROUP_HELP))
    conf.register_opts(neutron_opts + metadata_proxy_opts, group=GROUP)


def register_dynamic_opts(conf):
    """Register [neutron_tunnel] and one [neutron_physnet_<name>] group per
    [neutron] physnets entry; call after the configuration files are parsed."""
    conf.register_opt(numa_nodes_opt, group=TUNNEL_GROUP)
    for physnet in conf[GROUP].physnets:
        conf.register_opt(numa_nodes_opt, group=PHYSNET_GROUP % physnet)


def register_client_opts(conf):
    """The keystoneauth options (session, auth, adapter): registered by
    nova.conf.register_client_opts when used, as they import keystoneauth1."""
    from nova import ksa_utils
    ksa_utils.register_opts(conf, GROUP, SERVICE_TYPE)


def list_opts():
    from nova import ksa_utils
    return {GROUP: neutron_opts + metadata_proxy_opts + ksa_utils.list_opts(SERVICE_TYPE)}

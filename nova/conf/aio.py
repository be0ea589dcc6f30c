"""[aio] options of the all-in-one process: endpoints, and the clouds.yaml it writes."""

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


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}

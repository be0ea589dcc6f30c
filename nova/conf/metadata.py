"""The metadata API's options: where it listens, what it serves (Neutron's proxy: neutron.py)."""

from oslo_config import cfg

# EC2 versions the config drive leaves out by default, as upstream: the
# drive carries 2009-04-04 and latest.
DEFAULT_DRIVE_SKIP_VERSIONS = ('1.0 2007-01-19 2007-03-01 2007-08-29 2007-10-10 '
                               '2007-12-15 2008-02-01 2008-09-01')
VENDORDATA_PROVIDERS = ('StaticJSON', 'DynamicJSON')

# [api] options, under upstream's names.
api_opts = [
    cfg.StrOpt('config_drive_skip_versions',
               default=DEFAULT_DRIVE_SKIP_VERSIONS,
               help='EC2 metadata versions (space separated) left off the config '
                    'drive; the drive carries every other one and "latest".'),
    cfg.ListOpt('vendordata_providers', default=['StaticJSON'],
                item_type=cfg.types.String(choices=VENDORDATA_PROVIDERS),
                help='Where vendor data comes from: StaticJSON (the JSON object in '
                     'vendordata_jsonfile_path; also served as vendor_data.json) '
                     'and DynamicJSON (the answers of vendordata_dynamic_targets). '
                     'vendor_data2.json holds StaticJSON\'s object under "static" '
                     'and each dynamic target\'s answer under its name.'),
    cfg.StrOpt('vendordata_jsonfile_path',
               help='File holding the JSON object StaticJSON serves. Unset, '
                    'unreadable or not an object: the vendor data is {} (logged).'),
    cfg.ListOpt('vendordata_dynamic_targets', default=[],
                help='DynamicJSON\'s services, as name@url: each is POSTed the '
                     'instance\'s project-id, instance-id, image-id, user-data, '
                     'hostname, metadata and boot-roles, and its JSON answer is '
                     'served under the name. The request carries no token.'),
    cfg.StrOpt('vendordata_dynamic_ssl_certfile', default='',
               help='CA bundle verifying the https:// dynamic vendor data '
                    'services; empty uses the system\'s.'),
    cfg.IntOpt('vendordata_dynamic_connect_timeout', default=5, min=3,
               help='Seconds to wait for a connection to a dynamic vendor data '
                    'service.'),
    cfg.IntOpt('vendordata_dynamic_read_timeout', default=5, min=0,
               help='Seconds to wait for a connected dynamic vendor data service '
                    'to answer; 0 waits as long as it takes.'),
    cfg.BoolOpt('vendordata_dynamic_failure_fatal', default=False,
                help='A failing dynamic vendor data service fails the build of '
                     'the config drive (and the metadata API answers 503) '
                     'instead of serving {} for it.'),
    cfg.IntOpt('metadata_cache_expiration', default=15, min=0,
               help='Seconds the metadata API keeps what it built for an instance '
                    '(a booting guest asks a dozen times); 0 builds it for every '
                    'request. The guest\'s password POST clears it at once.'),
    cfg.StrOpt('dhcp_domain', default='novalocal',
               help='Domain appended to the instance hostname in the metadata '
                    '(meta_data.json hostname, EC2 hostname, local-hostname); '
                    'empty gives the bare hostname.'),
    cfg.BoolOpt('use_forwarded_for', default=False,
                help='Without the Neutron proxy: take the guest\'s address from '
                     'X-Forwarded-For instead of the connection. Only behind a '
                     'proxy that sets the header itself.'),
]

# [DEFAULT] options, under upstream's names.
default_opts = [
    cfg.ListOpt('enabled_apis', default=['osapi_compute', 'metadata'],
                item_type=cfg.types.String(choices=['osapi_compute', 'metadata']),
                help='What nova-api serves: osapi_compute, the compute API, on '
                     'api_listen:api_listen_port; metadata, the metadata API, on '
                     'metadata_listen:metadata_listen_port. nova-aio always serves '
                     'the compute API, and the metadata API when this names it.'),
    cfg.HostAddressOpt('metadata_listen', default='0.0.0.0',
                       help='Address the metadata API listens on (nova-api-metadata, '
                            'nova-api, nova-aio; the all-in-one\'s default is '
                            '127.0.0.1).'),
    cfg.PortOpt('metadata_listen_port', default=8775,
                help='Port the metadata API listens on (nova-api-metadata, nova-api, '
                     'nova-aio).'),
    cfg.IntOpt('metadata_workers', min=1,
               help='Processes nova-api-metadata serves with; unset: one per CPU. '
                    'Each keeps its own cache.'),
]


def register_opts(conf):
    conf.register_opts(api_opts, group='api')
    conf.register_opts(default_opts)


def list_opts():
    return {'api': api_opts, 'DEFAULT': default_opts}

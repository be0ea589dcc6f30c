"""[cinder] options: how the compute service reaches the volume service (Cinder v3)."""

from oslo_config import cfg

GROUP = 'cinder'
SERVICE_TYPE = 'volumev3'

GROUP_HELP = (
    'Configuration options for the Block Storage service. Requests carry '
    "the caller's token; the endpoint comes from the service catalog "
    '(service_type, interface and region_name select it) or from '
    'endpoint_override. The all-in-one points endpoint_override at its '
    'embedded volume endpoint and needs no [cinder] credentials. An '
    'endpoint without a version path gets /v3/<project id> appended.')

cinder_opts = [
    cfg.IntOpt('http_retries', default=3, min=0,
               help='How many times to retry a volume service call whose '
                    'connection could not be established. 0 disables '
                    'retries. Used unless the keystoneauth connect_retries '
                    'option is set.'),
    cfg.IntOpt('volume_wait_timeout', default=300, min=1,
               help='Seconds to wait for a volume (or snapshot) to reach '
                    'the expected status, e.g. for a volume created for '
                    'boot from volume to become available. Creating from '
                    'a large image can take minutes.'),
]


def register_opts(conf):
    # A new OptGroup per ConfigOpts: register_group() keeps a shallow copy,
    # so a shared module-level group would share option overrides between
    # every ConfigOpts it is registered on (tests build one each).
    conf.register_group(cfg.OptGroup(GROUP, title='Cinder options',
                                      help=GROUP_HELP))
    conf.register_opts(cinder_opts, group=GROUP)


def register_client_opts(conf):
    """The keystoneauth options (session, auth, adapter): registered by
    nova.conf.register_client_opts when used, as they import keystoneauth1."""
    from nova import ksa_utils
    ksa_utils.register_opts(conf, GROUP, SERVICE_TYPE)


def list_opts():
    from nova import ksa_utils
    return {GROUP: cinder_opts + ksa_utils.list_opts(SERVICE_TYPE)}

"""[DEFAULT] options of servers' networking on the compute host (allocation, VIF plugging)."""

from oslo_config import cfg

opts = [
    cfg.IntOpt('network_allocate_retries', default=0, min=0,
               help="How many times a compute host retries allocating a new "
                    "server's ports when Neutron fails; each retry waits twice "
                    'as long as the one before (1 s, 2 s, ... at most 30 s). '
                    'Ports made by a failed attempt are removed before the '
                    'next one.'),
    cfg.IntOpt('vif_plugging_timeout', default=300, min=0,
               help="Seconds a compute host waits for Neutron's "
                    'network-vif-plugged event of every port of a guest it '
                    'starts (the guest stays paused meanwhile). 0 does not '
                    'wait. See vif_plugging_is_fatal.'),
    cfg.BoolOpt('vif_plugging_is_fatal', default=True,
                help='Whether a guest whose network-vif-plugged events did not '
                     'all arrive within vif_plugging_timeout (or arrived with '
                     'status failed) fails to start (the server goes to ERROR) '
                     'rather than being resumed anyway.'),
    cfg.IntOpt('heal_instance_info_cache_interval', default=60,
               help="Seconds between runs of the compute host's task that "
                    "rebuilds one of its servers' network info cache from "
                    'Neutron (one server per run, in turn), so that changes '
                    'Neutron did not announce reach server views and the '
                    'metadata service. 0 or less disables it, which is not '
                    'recommended.'),
]


def register_opts(conf):
    conf.register_opts(opts)


def list_opts():
    return {'DEFAULT': opts}

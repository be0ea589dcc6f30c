"""[aio] options of the all-in-one process: listen addresses of its endpoints."""

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
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}

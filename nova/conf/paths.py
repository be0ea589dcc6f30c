"""[DEFAULT] options naming where the service keeps its state on disk."""

from oslo_config import cfg

opts = [
    cfg.StrOpt('state_path', default='/var/lib/nova',
               help='Top-level directory for the service state (database, '
                    'images of the embedded image service, instances).'),
    cfg.StrOpt('instances_path', default='$state_path/instances',
               help='Where instance disks, consoles and the image cache live.'),
    cfg.StrOpt('host', default='localhost',
               sample_default='<hostname>',
               help='Name of this node, used as the compute host name and '
                    'RPC server name. Defaults to the machine hostname.'),
]


def register_opts(conf):
    conf.register_opts(opts)
    import socket
    conf.set_default('host', socket.gethostname())


def list_opts():
    return {'DEFAULT': opts}

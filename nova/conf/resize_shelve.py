"""[DEFAULT] options of resize and shelve (same-host resize, auto-confirm, offload)."""

from oslo_config import cfg

opts = [
    cfg.BoolOpt('allow_resize_to_same_host', default=True,
                help='Allow a resize to keep the server on its current host. Upstream '
                     'defaults to False (multi-host clouds resize to another host); '
                     'this service defaults to True because a single-host all-in-one '
                     'has no other host. When False, a resize needs another host with '
                     'room and otherwise fails with "No valid host".'),
    cfg.IntOpt('resize_confirm_window', default=0, min=0,
               help='Seconds after which a resize waiting in VERIFY_RESIZE is '
                    'confirmed automatically by its compute host; 0 disables.'),
    cfg.IntOpt('shelved_offload_time', default=0, min=-1,
               help='Seconds a SHELVED server keeps its host resources before the '
                    'host offloads it (SHELVED_OFFLOADED); 0 offloads at once, -1 '
                    'never offloads automatically.'),
    cfg.IntOpt('shelved_poll_interval', default=3600,
               help='Seconds between the checks for shelved servers to offload and '
                    'resizes to auto-confirm; 0 or less disables both periodic tasks.'),
]


def register_opts(conf):
    conf.register_opts(opts)


def list_opts():
    return {'DEFAULT': opts}

"""[DEFAULT] options for guest lifecycle: hypervisor events and guests left running."""

from oslo_config import cfg

opts = [
    cfg.BoolOpt('handle_virt_lifecycle_events', default=True,
                help='Listen to the hypervisor\'s guest lifecycle events (started, '
                     'stopped, paused, resumed) and update the power state of the '
                     'instance at once; a guest stopped behind the service\'s back '
                     'becomes SHUTOFF within seconds. The periodic sync '
                     '(sync_power_state_interval) remains the fallback.'),
    cfg.StrOpt('running_deleted_instance_action', default='reap',
               choices=[('noop', 'Do nothing.'),
                        ('log', 'Log a warning for each such guest.'),
                        ('shutdown', 'Power the guest off, keep its domain and disks.'),
                        ('reap', 'Power it off and remove its domain and disks.')],
               help='What nova-compute does with a guest that is still on its '
                    'hypervisor while no live instance owns it (deleted in the '
                    'database, or unknown). Only domains named after '
                    'instance_name_template are considered; an unknown one also '
                    'needs its files in this host\'s instance directory.'),
    cfg.IntOpt('running_deleted_instance_poll_interval', default=1800,
               help='Seconds between checks for such guests; 0 or less disables '
                    'the check.'),
    cfg.IntOpt('running_deleted_instance_timeout', default=0, min=0,
               help='Seconds an instance must have been deleted before its guest '
                    'is acted upon.'),
]


def register_opts(conf):
    conf.register_opts(opts)


def list_opts():
    return {'DEFAULT': opts}

"""[DEFAULT] and [compute] options of the compute service (timeouts, allocation, limits)."""

from oslo_config import cfg

opts = [
    cfg.IntOpt('sync_power_state_interval', default=600,
               help='Seconds between power state syncs with the hypervisor; '
                    'a negative value disables the periodic sync.'),
    cfg.StrOpt('instance_name_template', default='instance-%08x',
               help='Template of the hypervisor-side name of an instance: a printf '
                    'format taking the database id, or one using %(uuid)s / %(id)d. '
                    'Deployments sharing one hypervisor between several databases '
                    '(e.g. test runs) need distinct templates.'),
    cfg.IntOpt('shutdown_timeout', default=60, min=0,
               help='Seconds to wait for a guest to shut down cleanly (ACPI) on '
                    'stop before it is powered off; 0 powers off at once.'),
    cfg.IntOpt('rescue_timeout', default=0, min=0,
               help='Seconds after which a rescued instance is unrescued '
                    'automatically; 0 disables.'),
    cfg.IntOpt('reclaim_instance_interval', default=0, min=0,
               help='Seconds a deleted server stays SOFT_DELETED (restorable with the '
                    'restore action) before each compute host reclaims it; also how '
                    'often hosts look for such servers. 0 deletes at once.'),
    cfg.IntOpt('reconcile_interval', default=300, min=0,
               help='Seconds between runs of crash reconciliation on compute hosts '
                    '(and of the lost-build check on conductors); 0 disables the '
                    'periodic run. Reconciliation always runs when a service starts.'),
    cfg.IntOpt('stuck_task_timeout', default=600, min=0,
               help='Seconds an instance must keep an unfinished task state, with no '
                    'operation running on it, before the periodic reconciliation takes '
                    'the task as lost and repairs it; also how long a server may wait '
                    'for a host before a conductor sets it to ERROR.'),
    cfg.IntOpt('lost_report_interval', default=10, min=0,
               help='Seconds between the compute host\'s checks of the servers whose '
                    'outcome it could not report to nova-conductor after every retry '
                    '(the message bus or the conductor away for longer than the retries '
                    'last, about ten minutes): each is repaired from its guest as soon '
                    'as the conductor answers. 0 disables; the reconciliation at '
                    'start-up and every reconcile_interval still runs.'),
    cfg.IntOpt('report_interval', default=10, min=1,
               help='Seconds between service heartbeats.'),
    cfg.IntOpt('service_down_time', default=60, min=1,
               help='Seconds after the last heartbeat a service counts as '
                    'down and receives no new instances.'),
    cfg.FloatOpt('cpu_allocation_ratio', default=4.0, min=0.0,
                 help='Virtual CPUs that may be allocated per physical CPU.'),
    cfg.FloatOpt('ram_allocation_ratio', default=1.0, min=0.0,
                 help='Virtual RAM that may be allocated per MiB of host RAM.'),
    cfg.FloatOpt('disk_allocation_ratio', default=1.0, min=0.0,
                 help='Virtual disk that may be allocated per GiB of host '
                      'disk.'),
    cfg.IntOpt('reserved_host_memory_mb', default=512, min=0,
               help='Host memory kept back from guests.'),
    cfg.IntOpt('reserved_host_disk_mb', default=0, min=0,
               help='Host disk kept back from guests.'),
    cfg.StrOpt('default_availability_zone', default='nova',
               help='Availability zone of compute hosts that are in no aggregate '
                    'with availability_zone metadata.'),
    cfg.StrOpt('default_schedule_zone',
               help='Availability zone given to servers created without one; unset '
                    'lets the scheduler pick any host.'),
    cfg.StrOpt('internal_service_availability_zone', default='internal',
               help='Availability zone shown for services other than nova-compute.'),
]

compute_group_opts = [
    cfg.IntOpt('max_disk_devices_to_attach', default=-1, min=-1,
               help='Most disk devices a server on this host may have: root, ephemeral '
                    'and swap disks, the config drive and volumes all count (-1: no '
                    'limit). An attach beyond it is refused (403) and a build beyond it '
                    'fails with a fault. Lowering it on a host with servers that have '
                    'more devices makes their rebuild, unshelve and hard reboot fail '
                    'there, as upstream.'),
]


def register_opts(conf):
    conf.register_opts(opts)
    conf.register_opts(compute_group_opts, group='compute')


def list_opts():
    return {'DEFAULT': opts, 'compute': compute_group_opts}

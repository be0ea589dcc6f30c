"""Compute manager: this host's resources as the scheduler sees them, and its usage recount."""

import json

from oslo_utils import netutils, timeutils

from nova.compute import manager_core
from nova.compute import resources as usage
from nova.compute.manager_migrate import migration_usage


class ResourcesManager:
    """The compute node record: capacity, capabilities, and the usage of what runs here."""

    target = manager_core.RPC_TARGET

    def __init__(self, core):
        self.conf = core.conf
        self.conductor_db = core.conductor_db
        self.driver = core.driver
        self.host = core.host
        # When recount_usage last ran (whole seconds, as migration rows'
        # updated_at): a migration that ended before it is already counted.
        self.recounted_at = None

    def get_host_uptime(self, context):
        return self.driver.get_host_uptime()

    def update_available_resource(self):
        resources = dict(self.driver.get_available_resource())
        resources.update(
            cpu_allocation_ratio=self.conf.cpu_allocation_ratio,
            ram_allocation_ratio=self.conf.ram_allocation_ratio,
            disk_allocation_ratio=self.conf.disk_allocation_ratio,
            reserved_memory_mb=self.conf.reserved_host_memory_mb,
            reserved_disk_mb=self.conf.reserved_host_disk_mb)
        resources.setdefault('hypervisor_hostname', self.host)
        resources['capabilities'] = _capabilities(resources, self.driver)
        self.conductor_db.compute_node_update(self.host, resources)

    def recount_usage(self):
        """Host usage from the instances actually here: no leaked claim survives a restart.

        Only at start-up: later, claims in flight (a host chosen, the
        instance not yet pointing at it) would be lost by a recount.
        """
        used = [0, 0, 0]
        self.recounted_at = timeutils.utcnow().replace(tzinfo=None, microsecond=0)
        rows = self.conductor_db.instance_get_all({'host': self.host})
        extra, leaving = migration_usage(self.conductor_db.migrations_in_progress(self.host),
                                         self.host, {row['uuid'] for row in rows})
        flavors = [row['flavor'] for row in rows if row['flavor'] and row['uuid'] not in leaving]
        for flavor in flavors + extra:
            for i, amount in enumerate(usage.requested_resources(flavor)):
                used[i] += amount
        self.conductor_db.compute_node_set_usage(self.host, *used)


def _capabilities(resources, driver):
    """What the scheduler's image-property filter needs to know about this host."""
    cpu_info = resources.get('cpu_info') or '{}'
    if isinstance(cpu_info, str):
        cpu_info = json.loads(cpu_info)
    caps = {'arch': cpu_info.get('arch'), 'hypervisor_type': resources.get('hypervisor_type'),
            'cpus': resources.get('vcpus'), 'hugepages': resources.get('hugepages'),
            # Shown by os-hypervisors (cpu_info, host_ip) as upstream does.
            'cpu_info': cpu_info, 'host_ip': netutils.get_my_ipv4()}
    caps.update({k: v for k, v in getattr(driver, 'capabilities', {}).items()
                 if isinstance(v, (bool, int, str))})
    return caps

"""Admin views of the cloud: services, hypervisors, availability zones and hosts."""

from oslo_utils import uuidutils

from nova import exception
from nova.db import api as db_api

COMPUTE = 'nova-compute'


class AdminAPI:
    """Services, hypervisors, zones and hosts for the compute API (admin-only callers)."""

    def __init__(self, conf, db, compute_rpcapi):
        self._conf = conf
        self._db = db
        self._compute_rpcapi = compute_rpcapi

    # -- liveness and zones ----------------------------------------------------
    def service_is_up(self, service):
        if service['forced_down']:
            return False
        seen = service['last_seen_up'] or service['updated_at'] or service['created_at']
        return seen is not None and seen >= db_api.utcnow_minus(self._conf.service_down_time)

    def host_zone_map(self):
        """{host: zone} from aggregates; other compute hosts are in the default zone."""
        return self._db.host_zones()

    def service_zone(self, service, zones=None):
        if service['binary'] != COMPUTE:
            return self._conf.internal_service_availability_zone
        zones = self.host_zone_map() if zones is None else zones
        return zones.get(service['host'], self._conf.default_availability_zone)

    # -- services ----------------------------------------------------------------
    def service_list(self, context, host=None, binary=None):
        services = self._db.service_get_all(binary=binary)
        return [s for s in services if host is None or s['host'] == host]

    def service_find(self, context, host, binary):
        for service in self._db.service_get_all(binary=binary):
            if service['host'] == host:
                return service
        raise exception.HostBinaryNotFound(host=host, binary=binary)

    def service_get(self, context, service_id):
        return self._db.service_get(service_id)

    def service_update(self, context, service, values):
        if values.get('disabled') is False:
            # Enabling clears the reason, as upstream.
            values = dict(values, disabled_reason=None)
        return self._db.service_update_by_id(service['id'], values)

    def service_delete(self, context, service):
        if service['binary'] == COMPUTE and self._db.instance_count(host=service['host']):
            raise exception.Conflict('Unable to delete compute service that is hosting '
                                     'instances. Migrate or delete the instances first.')
        self._db.service_destroy(service['id'])

    # -- hypervisors -------------------------------------------------------------
    def hypervisor_list(self, context):
        """[(node, service)] ordered by node id, each with its compute service."""
        services = {s['host']: s for s in self._db.service_get_all(binary=COMPUTE)}
        return [(node, services[node['host']]) for node in self._db.compute_nodes_get_all()
                if node['host'] in services]

    def hypervisor_get(self, context, hypervisor_id, by_uuid):
        for node, service in self.hypervisor_list(context):
            if (node['uuid'] if by_uuid else str(node['id'])) == str(hypervisor_id):
                return node, service
        raise exception.HypervisorNotFound(hypervisor_id=hypervisor_id)

    def hypervisor_instances(self, context, host):
        return self._db.instance_get_all({'host': host}, sort_keys=('id',), sort_dirs=('asc',))

    def hypervisor_uptime(self, context, host):
        return self._compute_rpcapi.get_host_uptime(context, host)

    def hypervisor_usage(self, context, host):
        """(running_vms, current_workload) of a host."""
        rows = self._db.instance_get_all({'host': host})
        return len(rows), sum(1 for r in rows if r['task_state'] is not None)

    # -- availability zones ---------------------------------------------------------
    def availability_zones(self, context):
        """({zone: [service, ...]} available, {zone: [...]} unavailable), as upstream splits them.

        A zone is available when at least one of its services is enabled.
        """
        zones = self.host_zone_map()
        by_zone = {}
        for service in self._db.service_get_all():
            by_zone.setdefault(self.service_zone(service, zones), []).append(service)
        available, unavailable = {}, {}
        for zone, services in by_zone.items():
            target = available if any(not s['disabled'] for s in services) else unavailable
            target[zone] = services
        return available, unavailable

    def check_availability_zone(self, context, zone):
        """400 unless an enabled compute service is in ``zone`` (as upstream); the zone."""
        zones = self.host_zone_map()
        enabled = {zones.get(s['host'], self._conf.default_availability_zone)
                   for s in self._db.service_get_all(binary=COMPUTE) if not s['disabled']}
        if zone not in enabled:
            raise exception.Invalid(reason='The requested availability zone is not '
                                           'available')
        return zone

    # -- os-hosts (until 2.42) ----------------------------------------------------------
    def host_list(self, context, zone=None):
        zones = self.host_zone_map()
        hosts = []
        for service in self._db.service_get_all():
            service_zone = self.service_zone(service, zones)
            if zone is None or zone == service_zone:
                hosts.append({'host_name': service['host'],
                              'service': service['topic'] or service['binary'][5:],
                              'zone': service_zone})
        return hosts

    def host_get(self, context, host):
        """Compute node and instances of a host; 404 if it runs no compute service."""
        if not any(s['host'] == host for s in self._db.service_get_all(binary=COMPUTE)):
            raise exception.HostNotFound(host=host)
        return self._db.compute_node_get(host), self.hypervisor_instances(context, host)


def is_uuid(value):
    return uuidutils.is_uuid_like(value)

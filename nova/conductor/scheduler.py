"""Host selection: filter live, enabled hosts with room, then claim atomically in the DB."""

from nova import exception
from nova.compute.resources import requested_resources
from nova.conductor import filters
from nova.db import api as db_api


def _free_ram(node):
    return (node['memory_mb'] - node['reserved_memory_mb']) * node['ram_allocation_ratio'] \
        - node['memory_mb_used']


class Scheduler:
    """Spread instances over hosts, most free RAM first; claims are compare-and-set."""

    def __init__(self, conf, db):
        self.conf = conf
        self.db = db

    def host_zone(self, host):
        """The availability zone of ``host``: its aggregate's, else the default zone."""
        return self.db.host_zones().get(host, self.conf.default_availability_zone)

    def select_and_claim(self, flavor, exclude=(), force_host=None, image_props=None,
                         zone=None, group=None, same_host=(), different_host=(),
                         exclude_instance=None):
        """The first host that fits and could be claimed; NoValidHost if none.

        ``exclude_instance``: a server being moved, not counted among its
        group's members where it is now (upstream does the same).
        """
        vcpus, memory_mb, disk_gb = requested_resources(flavor)
        up_since = db_api.utcnow_minus(self.conf.service_down_time)
        nodes = self.db.compute_nodes_with_room(vcpus, memory_mb, disk_gb, up_since)
        if zone is not None:
            # Only hosts of the requested zone (aggregate metadata or the default).
            zones = self.db.host_zones()
            nodes = [n for n in nodes
                     if zones.get(n['host'], self.conf.default_availability_zone) == zone]
        nodes = [n for n in nodes if n['host'] not in exclude
                 and (force_host is None or n['host'] == force_host)
                 and filters.image_props_filter(n, image_props or {}, flavor)]
        nodes = self._instance_hints(nodes, same_host, different_host)
        order = _free_ram
        if group is not None:
            nodes, order = self._group_placement(nodes, group, exclude_instance)
        for node in sorted(nodes, key=order, reverse=True):
            # Another conductor may have taken the room since the query:
            # the claim re-checks capacity inside the UPDATE itself.
            if self.db.compute_node_claim(node['host'], vcpus, memory_mb, disk_gb):
                return node
        raise exception.NoValidHost(reason='There are not enough hosts available.')

    def _instance_hints(self, nodes, same_host, different_host):
        """Upstream's SameHostFilter and DifferentHostFilter over the named servers."""
        def hosts(uuids):
            rows = self.db.instance_get_all({'uuid': list(uuids)}) if uuids else []
            return {r['host'] for r in rows if r['host']}
        if same_host:
            wanted = hosts(same_host)
            nodes = [n for n in nodes if n['host'] in wanted]
        if different_host:
            avoided = hosts(different_host)
            nodes = [n for n in nodes if n['host'] not in avoided]
        return nodes

    def _group_placement(self, nodes, group_uuid, exclude_instance=None):
        """Server group filters (hard policies) and weighers (soft ones), as upstream."""
        try:
            group = self.db.server_group_get(group_uuid)
        except exception.InstanceGroupNotFound:
            return nodes, _free_ram
        members = self.db.server_group_member_hosts(group_uuid,
                                                    exclude_instance=exclude_instance)
        policy = group['policy']
        if policy == 'affinity' and members:
            nodes = [n for n in nodes if n['host'] in members]
        elif policy == 'anti-affinity':
            limit = group['rules'].get('max_server_per_host', 1)
            nodes = [n for n in nodes if members.get(n['host'], 0) < limit]
        if policy == 'soft-affinity':
            return nodes, lambda n: (members.get(n['host'], 0), _free_ram(n))
        if policy == 'soft-anti-affinity':
            return nodes, lambda n: (-members.get(n['host'], 0), _free_ram(n))
        return nodes, _free_ram

    def release(self, host, flavor):
        self.db.compute_node_release(host, *requested_resources(flavor))

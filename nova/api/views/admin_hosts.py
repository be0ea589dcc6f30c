"""Response bodies of os-services, os-hypervisors, os-aggregates and os-availability-zone."""

import json

from nova.api import microversion as mv


def time(value):
    return value.strftime('%Y-%m-%dT%H:%M:%S.%f') if value is not None else None


def service(req, svc, zone, up):
    uuids = req.is_at_least(mv.SERVICE_HYPERVISOR_UUIDS)
    body = {'id': svc['uuid'] if uuids else svc['id'], 'binary': svc['binary'],
            'host': svc['host'], 'zone': zone,
            'status': 'disabled' if svc['disabled'] else 'enabled',
            'state': 'up' if up else 'down',
            'updated_at': time(svc['updated_at'] or svc['created_at']),
            'disabled_reason': svc['disabled_reason']}
    if req.is_at_least(mv.SERVICE_FORCED_DOWN):
        body['forced_down'] = svc['forced_down']
    return body


def _cpu_info(req, node):
    info = (node.get('capabilities') or {}).get('cpu_info') or {}
    # 2.28 shows cpu_info as an object; before, as the JSON text of it.
    return info if req.is_at_least(mv.HYPERVISOR_CPU_INFO_OBJECT) else json.dumps(info)


def hypervisor(req, node, svc, up, detail=False, servers=None, usage=(0, 0), uptime=None,
               show_uptime=False):
    uuids = req.is_at_least(mv.SERVICE_HYPERVISOR_UUIDS)
    body = {'id': node['uuid'] if uuids else node['id'],
            'hypervisor_hostname': node['hypervisor_hostname'],
            'state': 'up' if up else 'down',
            'status': 'disabled' if svc['disabled'] else 'enabled'}
    if detail:
        caps = node.get('capabilities') or {}
        body.update({'hypervisor_type': node['hypervisor_type'] or 'QEMU',
                     'hypervisor_version': node['hypervisor_version'] or 0,
                     'host_ip': caps.get('host_ip') or '127.0.0.1',
                     'service': {'id': svc['uuid'] if uuids else svc['id'],
                                 'host': svc['host'],
                                 'disabled_reason': svc['disabled_reason']}})
        if not req.is_at_least(mv.HYPERVISOR_STATS_REMOVED):
            body.update(_usage(node, usage))
            body['cpu_info'] = _cpu_info(req, node)
    if show_uptime and req.is_at_least(mv.HYPERVISOR_STATS_REMOVED):
        # 2.88 show: null while the compute service is down.
        body['uptime'] = uptime
    if servers:
        body['servers'] = [{'name': s['name'], 'uuid': s['uuid']} for s in servers]
    elif servers is not None and req.is_at_least(mv.FULL_UPDATE_BODY):
        # From 2.75 with_servers always yields the key, empty or not.
        body['servers'] = []
    return body


def _usage(node, usage):
    running, workload = usage
    free_disk = node['local_gb'] - node['local_gb_used']
    return {'vcpus': node['vcpus'], 'memory_mb': node['memory_mb'],
            'local_gb': node['local_gb'], 'vcpus_used': node['vcpus_used'],
            'memory_mb_used': node['memory_mb_used'], 'local_gb_used': node['local_gb_used'],
            'free_ram_mb': node['memory_mb'] - node['memory_mb_used'],
            'free_disk_gb': free_disk, 'disk_available_least': free_disk,
            'current_workload': workload, 'running_vms': running}


def statistics(nodes_with_usage):
    keys = ('vcpus', 'memory_mb', 'local_gb', 'vcpus_used', 'memory_mb_used',
            'local_gb_used', 'free_ram_mb', 'free_disk_gb', 'disk_available_least',
            'current_workload', 'running_vms')
    stats = dict.fromkeys(keys, 0)
    for node, usage in nodes_with_usage:
        for key, value in _usage(node, usage).items():
            stats[key] += value
    stats['count'] = len(nodes_with_usage)
    return {'hypervisor_statistics': stats}


def aggregate(req, agg):
    body = {'id': agg['id'], 'name': agg['name'],
            'availability_zone': agg['metadata'].get('availability_zone'),
            'created_at': time(agg['created_at']), 'updated_at': time(agg['updated_at']),
            'deleted_at': None, 'deleted': False,
            'hosts': agg['hosts'], 'metadata': agg['metadata']}
    if req.is_at_least(mv.AGGREGATE_UUID):
        body['uuid'] = agg['uuid']
    return body

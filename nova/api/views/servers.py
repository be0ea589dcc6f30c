"""Server response bodies per microversion, built straight from database rows."""

import datetime
import hashlib
import json

from oslo_utils import timeutils

from nova import trusted_certs
from nova.api import microversion as mv
from nova.api.views import common
from nova.image import sysmeta
from nova.network import model as net_model
from nova.policies import servers as policies

# (vm_state, task_state) -> status; a task_state key overrides the default.
_STATUS = {
    'building': {'default': 'BUILD'},
    'active': {'default': 'ACTIVE', 'rebooting': 'REBOOT', 'reboot_pending': 'REBOOT',
               'reboot_started': 'REBOOT', 'rebooting_hard': 'HARD_REBOOT',
               'reboot_pending_hard': 'HARD_REBOOT', 'reboot_started_hard': 'HARD_REBOOT',
               'rebuilding': 'REBUILD', 'rebuild_block_device_mapping': 'REBUILD',
               'rebuild_spawning': 'REBUILD', 'migrating': 'MIGRATING',
               'resize_prep': 'RESIZE', 'resize_migrating': 'RESIZE',
               'resize_migrated': 'RESIZE', 'resize_finish': 'RESIZE',
               'updating_password': 'PASSWORD'},
    'stopped': {'default': 'SHUTOFF', 'resize_prep': 'RESIZE', 'rebuilding': 'REBUILD',
                'rebuild_spawning': 'REBUILD'},
    'resized': {'default': 'VERIFY_RESIZE', 'resize_reverting': 'REVERT_RESIZE'},
    'paused': {'default': 'PAUSED', 'migrating': 'MIGRATING'},
    'suspended': {'default': 'SUSPENDED'},
    'rescued': {'default': 'RESCUE'},
    'error': {'default': 'ERROR', 'rebuilding': 'REBUILD', 'rebuild_spawning': 'REBUILD'},
    'deleted': {'default': 'DELETED'},
    'soft-delete': {'default': 'SOFT_DELETED'},
    'shelved': {'default': 'SHELVED'},
    'shelved_offloaded': {'default': 'SHELVED_OFFLOADED'},
}
_PROGRESS_STATUSES = ('ACTIVE', 'BUILD', 'REBUILD', 'RESIZE', 'VERIFY_RESIZE', 'MIGRATING')
_FAULT_STATUSES = ('ERROR', 'DELETED')
# 2.16: host_status for those allowed by os_compute_api:servers:show:host_status.



def status(inst):
    by_task = _STATUS.get(inst['vm_state'], {'default': 'UNKNOWN'})
    return by_task.get(inst['task_state'], by_task['default'])


def host_id(inst):
    if not inst['host']:
        return ''
    return hashlib.sha224((inst['project_id'] + inst['host']).encode()).hexdigest()


def basic(req, inst):
    return {'id': inst['uuid'], 'name': inst['display_name'],
            'links': common.links(req, 'servers', inst['uuid'])}


def _image(req, inst):
    if not inst['image_ref']:
        return ''
    image = {'id': inst['image_ref'], 'links': common.bookmark(req, 'images', inst['image_ref'])}
    if req.is_at_least(mv.IMAGE_PROPERTIES):
        props = sysmeta.sysmeta_to_image(inst['system_metadata']).get('properties', {})
        image['properties'] = {k: (str(v)[:255] if v is not None else None)
                               for k, v in props.items()}
    return image


def _flavor(req, inst, show_extra_specs):
    flavor = inst['flavor'] or {}
    if not req.is_at_least(mv.FLAVOR_EMBEDDED):
        if not flavor:
            return {}
        return {'id': flavor['flavorid'], 'links': common.bookmark(req, 'flavors',
                                                                  flavor['flavorid'])}
    body = {'vcpus': flavor.get('vcpus'), 'ram': flavor.get('memory_mb'),
            'disk': flavor.get('root_gb'), 'ephemeral': flavor.get('ephemeral_gb'),
            'swap': flavor.get('swap'), 'original_name': flavor.get('name')}
    if show_extra_specs:
        body['extra_specs'] = flavor.get('extra_specs') or {}
    return body


def _fault(inst, fault, is_admin):
    # The schema promises an integer; a stray non-HTTP code reads as a server error.
    code = fault['code'] if isinstance(fault['code'], int) else 500
    body = {'code': code, 'created': common.isotime(fault['created_at']),
            'message': fault['message']}
    # Tracebacks stay with admins unless the fault is a user-caused one.
    if fault.get('details') and (is_admin or code != 500):
        body['details'] = fault['details']
    return body


class ViewContext:
    """What a page of servers needs besides the rows, fetched once per request."""

    def __init__(self, req, faults=None, volumes=None, host_status=None):
        ctx = req.context
        self.req = req
        self.faults = faults or {}
        self.volumes = volumes or {}
        self.show_extended = ctx.can(policies.EXTENDED_ATTRIBUTES,
                                     fatal=False)
        self.show_extra_specs = ctx.can(policies.FLAVOR_EXTRA_SPECS_INDEX,
                                        fatal=False)
        self.is_admin = ctx.is_admin
        # {instance uuid: [group uuid]}; filled by the single-server show (2.71).
        self.server_groups = {}
        # {instance uuid: [{'name': ...}]}: the groups of the servers' ports.
        self.security_groups = {}
        if host_status is None and _wants_host_status(req):
            host_status = _host_status_lookup(req)
        self.host_status = host_status


def _wants_host_status(req):
    # Upstream leaves host_status out of the pre-2.75 update/rebuild bodies.
    if not req.is_at_least(mv.HOST_STATUS):
        return False
    if req.method not in ('GET', 'HEAD') and not req.is_at_least(mv.FULL_UPDATE_BODY):
        return False
    return req.context.can(policies.SHOW_HOST_STATUS, fatal=False)


def _host_status_lookup(req):
    """inst -> UP/DOWN/MAINTENANCE/UNKNOWN, or '' without a host, from one services query."""
    services = {s['host']: s for s in req.app.compute_api.admin.service_list(
        req.context, binary='nova-compute')}
    down_time = datetime.timedelta(seconds=req.app.conf.service_down_time)
    now = timeutils.utcnow()

    def lookup(inst):
        service = services.get(inst['host']) if inst['host'] else None
        if service is None:
            return ''
        if service['forced_down']:
            return 'DOWN'
        if service['disabled']:
            return 'MAINTENANCE'
        seen = service['last_seen_up'] or service['created_at']
        # A missed heartbeat is UNKNOWN, not DOWN: the guest may still be running.
        return 'UP' if seen is not None and now - seen <= down_time else 'UNKNOWN'
    return lookup


def show(vc, inst):
    """The full server body of one server (show, and from 2.75 update/rebuild)."""
    return _full(vc, inst, in_list=False)


def _full(vc, inst, in_list):
    req = vc.req
    state = status(inst)
    body = basic(req, inst)
    body.update({
        'status': state, 'tenant_id': inst['project_id'], 'user_id': inst['user_id'],
        'metadata': inst['metadata'], 'hostId': host_id(inst),
        'image': _image(req, inst), 'flavor': _flavor(req, inst, vc.show_extra_specs),
        'created': common.isotime(inst['created_at']),
        'updated': common.isotime(inst['updated_at'] or inst['created_at']),
        'addresses': addresses(inst, extended=_extended_addresses(req)),
        'accessIPv4': inst['access_ip_v4'] or '',
        'accessIPv6': inst['access_ip_v6'] or '',
        # AUTO or MANUAL, as asked at create/rebuild/update (or as the image said).
        'OS-DCF:diskConfig': (inst['system_metadata'] or {}).get('disk_config', 'MANUAL'),
        'key_name': inst['key_name'],
        'config_drive': 'True' if inst['config_drive'] else '',
        'OS-EXT-AZ:availability_zone': (inst['availability_zone']
                                        or ('nova' if inst['host'] else '')),
        'OS-SRV-USG:launched_at': common.usg_time(inst['launched_at']),
        'OS-SRV-USG:terminated_at': common.usg_time(inst['terminated_at']),
        'OS-EXT-STS:task_state': inst['task_state'],
        'OS-EXT-STS:vm_state': inst['vm_state'],
        'OS-EXT-STS:power_state': inst['power_state'],
        'os-extended-volumes:volumes_attached': _volumes(req, vc.volumes.get(inst['uuid'], ())),
    })
    if state in _PROGRESS_STATUSES:
        body['progress'] = inst['progress'] or 0
    groups = vc.security_groups.get(inst['uuid'])
    if groups:
        # Upstream shows the key only for a server whose ports have groups.
        body['security_groups'] = groups
    fault = vc.faults.get(inst['uuid'])
    if fault and state in _FAULT_STATUSES:
        body['fault'] = _fault(inst, fault, vc.is_admin)
    _extended(vc, inst, body)
    _versioned(vc, inst, body, in_list)
    return body


def _extended_addresses(req):
    # Upstream's update and rebuild bodies before 2.75 carry addr and version only.
    return req.method in ('GET', 'HEAD') or req.is_at_least(mv.FULL_UPDATE_BODY)


def addresses(inst, extended=True):
    """``addresses`` from the network info cache; none while the server builds, as
    upstream (its ports are not all there yet)."""
    if inst['vm_state'] == 'building':
        return {}
    return net_model.addresses(inst.get('network_info') or [], extended)


def _volumes(req, bdms):
    items = []
    for bdm in bdms:
        if not bdm['volume_id']:
            # A volume still being created for the server has no id to show yet.
            continue
        item = {'id': bdm['volume_id']}
        if req.is_at_least(mv.EXTENDED_ATTRS):
            item['delete_on_termination'] = bool(bdm['delete_on_termination'])
        items.append(item)
    return items


def _extended(vc, inst, body):
    req = vc.req
    if req.is_at_least(mv.HOSTNAME_FOR_USERS):
        body['OS-EXT-SRV-ATTR:hostname'] = inst['hostname']
    if not vc.show_extended:
        return
    body.update({'OS-EXT-SRV-ATTR:host': inst['host'],
                 'OS-EXT-SRV-ATTR:instance_name': inst['name'],
                 'OS-EXT-SRV-ATTR:hypervisor_hostname': inst['node']})
    if req.is_at_least(mv.EXTENDED_ATTRS):
        body.update({'OS-EXT-SRV-ATTR:reservation_id': inst['reservation_id'],
                     'OS-EXT-SRV-ATTR:launch_index': inst['launch_index'],
                     'OS-EXT-SRV-ATTR:hostname': inst['hostname'],
                     'OS-EXT-SRV-ATTR:kernel_id': inst['kernel_id'] or '',
                     'OS-EXT-SRV-ATTR:ramdisk_id': inst['ramdisk_id'] or '',
                     'OS-EXT-SRV-ATTR:root_device_name': inst['root_device_name'],
                     'OS-EXT-SRV-ATTR:user_data': inst['user_data']})


def _versioned(vc, inst, body, in_list):
    req = vc.req
    if req.is_at_least(mv.LOCKED):
        body['locked'] = bool(inst['locked'])
    if req.is_at_least(mv.HOST_STATUS) and vc.host_status is not None:
        body['host_status'] = vc.host_status(inst)
    if req.is_at_least(mv.DESCRIPTION):
        body['description'] = inst['display_description']
    if req.is_at_least(mv.TAGS):
        body['tags'] = inst['tags']
    if req.is_at_least(mv.TRUSTED_CERTS):
        body['trusted_image_certificates'] = trusted_certs.of(inst)
    if req.is_at_least(mv.SERVER_GROUPS) and not in_list:
        # Upstream shows server_groups on one server only, never in /servers/detail.
        body['server_groups'] = vc.server_groups.get(inst['uuid'], [])
    if req.is_at_least(mv.LOCKED_REASON):
        body['locked_reason'] = inst['locked_reason']
    if req.is_at_least(mv.PINNED_AZ):
        # Pinned to the zone asked for at create until unpinned ('') or re-pinned (2.104).
        pin = (inst['system_metadata'] or {}).get('pinned_az', inst['availability_zone'])
        body['pinned_availability_zone'] = pin or None
    if req.is_at_least(mv.SCHEDULER_HINTS):
        hints = inst['system_metadata'].get('scheduler_hints')
        body['scheduler_hints'] = json.loads(hints) if hints else {}
    if req.is_at_least(mv.IMAGE_PROPS_OVERRIDE):
        body['image_props_override'] = inst['image_props_override'] or {}


def index(req, instances, limit):
    body = {'servers': [basic(req, i) for i in instances]}
    links = common.next_link(req, 'servers', [{'id': i['uuid']} for i in instances], limit)
    if links:
        body['servers_links'] = links
    return body


def detail(vc, instances, limit):
    body = {'servers': [_full(vc, i, in_list=True) for i in instances]}
    links = common.next_link(vc.req, 'servers/detail', [{'id': i['uuid']} for i in instances],
                             limit)
    if links:
        body['servers_links'] = links
    return body


def topology(record, with_host):
    """The 2.78 topology body of a recorded NUMA placement (numa_record's shape).

    As upstream: each node's vCPUs, thread siblings and memory; host_node and
    cpu_pinning only ``with_host`` (admins); no NUMA cells, no nodes.
    """
    nodes = []
    for cell in (record or {}).get('cells', ()):
        node = {'vcpu_set': list(cell['vcpus']), 'siblings': [list(s) for s in cell['siblings']],
                'memory_mb': cell['memory_mb']}
        if with_host:
            node['host_node'] = cell['host_node']
            node['cpu_pinning'] = dict(cell['cpu_pinning'])
        nodes.append(node)
    return {'nodes': nodes, 'pagesize_kb': (record or {}).get('pagesize_kb')}

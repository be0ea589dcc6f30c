"""Handlers of /servers: create, list, detail, show, update, delete."""

import re

from oslo_utils import strutils

from nova import exception
from nova import vm_states as vs
from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import servers as schemas
from nova.api.views import common
from nova.api.views import servers as views
from nova.compute import server_requests
from nova.network import model as net_model
from nova.policies import servers as policies

# Keys of the full view that the pre-2.75 update response does not carry.
_DETAIL_ONLY_PREFIXES = ('OS-EXT-', 'OS-SRV-USG:', 'os-extended-volumes:')
_DETAIL_ONLY = ('key_name', 'config_drive', 'security_groups')

_SORT_KEYS = {'created_at', 'display_name', 'display_description', 'host', 'hostname',
              'image_ref', 'launched_at', 'locked', 'node', 'power_state', 'project_id',
              'task_state', 'terminated_at', 'updated_at', 'user_id', 'uuid', 'vm_state',
              'availability_zone', 'config_drive', 'key_name', 'launch_index', 'kernel_id',
              'ramdisk_id', 'root_device_name', 'reservation_id', 'access_ip_v4',
              'access_ip_v6', 'progress'}


def _view_context(req, instances, in_list=False, volumes=None, server_groups=None):
    """``volumes`` and ``server_groups`` (keyed by instance uuid) when already read."""
    compute_api = req.app.compute_api
    uuids = [i['uuid'] for i in instances]
    # Faults only for the servers that show one (most polls read none).
    faulted = [i['uuid'] for i in instances if i['vm_state'] in ('error', 'deleted')]
    faults = compute_api.records.latest_faults(req.context, faulted) if faulted else {}
    if volumes is None:
        volumes = compute_api.records.volume_mappings(req.context, uuids)
    vc = views.ViewContext(req, faults=faults, volumes=volumes)
    # The groups of the servers' ports: one Neutron query for the page.
    vc.security_groups = compute_api.networking.security_groups_of(req.context, instances)
    # One server's body (show, update, rebuild) names its groups from 2.71; lists never do.
    if not in_list and req.is_at_least(mv.SERVER_GROUPS):
        vc.server_groups = server_groups if server_groups is not None else \
            req.app.compute_api.server_groups.server_groups_of(uuids)
    return vc


def _target(instance):
    return {'project_id': instance['project_id'], 'user_id': instance['user_id']}


def _get(req, server_id):
    return req.app.compute_api.servers.get(req.context, server_id)


def show(req, server_id):
    # The call clients poll: the server with its volumes and groups in one query.
    instance, volumes, groups = req.app.compute_api.servers.get_for_view(
        req.context, server_id, with_groups=req.is_at_least(mv.SERVER_GROUPS))
    req.context.can(policies.SHOW, target=_target(instance))
    vc = _view_context(req, [instance], volumes={instance['uuid']: volumes},
                       server_groups={instance['uuid']: groups})
    return wsgi.json_response({'server': views.show(vc, instance)})


def topology(req, server_id):
    """GET /servers/{id}/topology (2.78): the guest NUMA cells; host fields for admins."""
    instance = _get(req, server_id)
    target = _target(instance)
    req.context.can(policies.TOPOLOGY_INDEX, target=target)
    with_host = req.context.can(policies.TOPOLOGY_HOST_INDEX, target=target, fatal=False)
    return wsgi.json_response(views.topology(instance['numa_topology'], with_host))


def _list(req, policy_name, all_tenants_policy):
    # Policy first, then the query string.
    req.context.can(policy_name, target={'project_id': req.context.project_id})
    return _filtered_list(req, all_tenants_policy)


@validation.query_schema(schemas.list_query, max_version=mv.before(mv.CHANGES_BEFORE))
@validation.query_schema(schemas.list_query_v2_66, mv.CHANGES_BEFORE,
                         strict_from=mv.FULL_UPDATE_BODY)
def _filtered_list(req, all_tenants_policy, params):
    ctx = req.context
    filters = {}
    all_tenants = 'all_tenants' in params and strutils.bool_from_string(
        params['all_tenants'] or 'True', default=True)
    if all_tenants:
        ctx.can(all_tenants_policy, target={})
        for key in ('project_id', 'tenant_id'):
            if key in params:
                filters['project_id'] = params[key]
    else:
        filters['project_id'] = ctx.project_id
    limit = validation.clamp_int(params.get('limit', '%d' % req.app.conf.api.max_limit),
                                 req.app.conf.api.max_limit)
    if 'status' in params:
        states = vs.STATUS_TO_VM_STATES.get(params['status'].upper())
        if states is None:
            if req.is_at_least(mv.INVALID_STATUS_REJECTED):
                raise wsgi.fault(400, 'Invalid status value')
            return [], limit
        filters['vm_state'] = states
    for key, column in (('image', 'image_ref'), ('host', 'host'), ('uuid', 'uuid'),
                        ('user_id', 'user_id'), ('vm_state', 'vm_state'),
                        ('task_state', 'task_state')):
        if key in params:
            if key == 'host' and not ctx.is_admin:
                continue
            filters[column] = params[key]
    regex = _regex_filters(ctx, params)
    if regex:
        filters['regex'] = regex
    fixed_ips = _ip_filters(req, params)
    if fixed_ips:
        filters['fixed_ip_regex'] = fixed_ips
    if 'flavor' in params:
        filters['instance_type_flavorid'] = params['flavor']
    if 'locked' in params:
        filters['locked'] = strutils.bool_from_string(params['locked'])
    changes = validation.changes_window(params)
    if changes:
        # A window of changes lists the deleted servers in it too, as upstream.
        filters.update(changes)
        filters['deleted'] = True
    if strutils.bool_from_string(params.get('deleted', 'false')) and ctx.is_admin:
        filters['deleted'] = True
    if not filters.get('deleted') and vs.SOFT_DELETED not in filters.get('vm_state', ()):
        filters['hide_soft_deleted'] = True
    sort_key = params.get('sort_key', 'created_at')
    if sort_key not in _SORT_KEYS:
        raise wsgi.fault(400, 'Invalid sort_key %s' % sort_key)
    sort_dir = params.get('sort_dir', 'desc')
    try:
        instances = req.app.compute_api.servers.list(
            ctx, filters, limit, params.get('marker'),
            (sort_key, 'id'), (sort_dir, sort_dir))
    except exception.Invalid as exc:
        raise wsgi.fault(400, 'marker [%s] not found' % params.get('marker')
                         if 'marker' in exc.format_message() else exc.format_message())
    return instances, limit


# Query parameters upstream matches as regular expressions, and their columns.
_REGEX_FILTERS = (('name', 'display_name'), ('reservation_id', 'reservation_id'),
                  ('availability_zone', 'availability_zone'), ('node', 'node'),
                  ('key_name', 'key_name'), ('hostname', 'hostname'),
                  ('description', 'display_description'))


def _regex_filters(ctx, params):
    regex = {}
    for key, column in _REGEX_FILTERS:
        if key not in params or (key == 'node' and not ctx.is_admin):
            continue
        try:
            re.compile(params[key])
        except re.error:
            raise wsgi.fault(400, 'Invalid regular expression in filter %s: %s'
                             % (key, params[key]))
        regex[column] = params[key]
    return regex


def _compiled(key, pattern):
    try:
        return re.compile(pattern)
    except re.error:
        raise wsgi.fault(400, 'Invalid regular expression in filter %s: %s' % (key, pattern))


def _ip_filters(req, params):
    """{IP version: pattern} of the ``ip`` and ``ip6`` filters (regular expressions).

    As upstream, a user's ``ip6`` counts from 2.5 (an administrator's always);
    below that it is dropped unread.
    """
    wanted = {}
    if 'ip' in params:
        wanted[4] = _compiled('ip', params['ip'])
    if 'ip6' in params and (req.context.is_admin or req.is_at_least(mv.IP6_FILTER)):
        wanted[6] = _compiled('ip6', params['ip6'])
    return wanted


def index(req):
    instances, limit = _list(req, policies.INDEX, policies.INDEX_ALL_TENANTS)
    return wsgi.json_response(views.index(req, instances, limit))


def detail(req):
    instances, limit = _list(req, policies.DETAIL, policies.DETAIL_ALL_TENANTS)
    vc = _view_context(req, instances, in_list=True)
    return wsgi.json_response(views.detail(vc, instances, limit))


def create(req):
    ctx = req.context
    # Policy first, then the body (a reader gets 403 whatever it sent).
    ctx.can(policies.CREATE, target={'project_id': ctx.project_id, 'user_id': ctx.user_id})
    return _create(req)


@validation.schema(schemas.create_v2_1, mv.MIN, mv.before(mv.DESCRIPTION))
@validation.schema(schemas.create_v2_19, mv.DESCRIPTION, mv.before(mv.DEVICE_TAGS))
@validation.schema(schemas.create_v2_32, mv.DEVICE_TAGS, mv.before(mv.NETWORKS_REQUIRED))
@validation.schema(schemas.create_v2_37, mv.NETWORKS_REQUIRED, mv.before(mv.CREATE_TAGS))
@validation.schema(schemas.create_v2_52, mv.CREATE_TAGS, mv.before(mv.PERSONALITY_REMOVED))
@validation.schema(schemas.create_v2_57, mv.PERSONALITY_REMOVED, mv.before(mv.TRUSTED_CERTS))
@validation.schema(schemas.create_v2_63, mv.TRUSTED_CERTS, mv.before(mv.BDM_VOLUME_TYPE))
@validation.schema(schemas.create_v2_67, mv.BDM_VOLUME_TYPE, mv.before(mv.CREATE_ON_HOST))
@validation.schema(schemas.create_v2_74, mv.CREATE_ON_HOST, mv.before(mv.HOSTNAME_FOR_USERS))
@validation.schema(schemas.create_v2_90, mv.HOSTNAME_FOR_USERS, mv.before(mv.FQDN_HOSTNAMES))
@validation.schema(schemas.create_v2_94, mv.FQDN_HOSTNAMES, mv.before(mv.IMAGE_PROPS_OVERRIDE))
@validation.schema(schemas.create_v2_105, mv.IMAGE_PROPS_OVERRIDE)
def _create(req, body):
    ctx = req.context
    server = body['server']
    if server.get('host') or server.get('hypervisor_hostname'):
        ctx.can(policies.CREATE_FORCED_HOST, target={})
    if 'image_props_override' in server:
        ctx.can(policies.CREATE_IMAGE_PROPS_OVERRIDE,
                target={'project_id': ctx.project_id, 'user_id': ctx.user_id})
    if isinstance(server.get('networks'), list) and server['networks']:
        # Only a request naming networks or ports, as upstream.
        ctx.can(policies.CREATE_ATTACH_NETWORK,
                target={'project_id': ctx.project_id, 'user_id': ctx.user_id})
    instances, admin_password = req.app.compute_api.servers.create(
        ctx, boot_request(body, supports_multiattach=req.is_at_least(mv.MULTIATTACH)))
    if strutils.bool_from_string(server.get('return_reservation_id', False)):
        return wsgi.json_response({'reservation_id': instances[0]['reservation_id']},
                                  status=202)
    first = instances[0]
    resp_server = {'id': first['uuid'], 'links': common.links(req, 'servers', first['uuid']),
                   'OS-DCF:diskConfig': (first['system_metadata'] or {}).get('disk_config',
                                                                             'MANUAL'),
                   # The requested groups, as upstream's create answer (it shows them
                   # before any port exists); later views list a server's ports' groups.
                   'security_groups': [{'name': g['name']} for g in
                                       server.get('security_groups') or [{'name': 'default'}]]}
    if admin_password is not None:
        resp_server['adminPass'] = admin_password
    return wsgi.json_response({'server': resp_server}, status=202,
                              headers={'Location': req.url_for('servers', first['uuid'])})


def boot_request(body, supports_multiattach=False):
    """The typed request for a validated create body: the REST names end here."""
    server = body['server']
    return server_requests.BootRequest(
        name=server['name'], flavor_ref=server['flavorRef'],
        image_ref=server.get('imageRef') or '',
        block_device_mappings=server.get('block_device_mapping_v2'),
        image_props_override=server.get('image_props_override'),
        key_name=server.get('key_name'), availability_zone=server.get('availability_zone'),
        # Counts may come as digit strings (the schema allows both).
        min_count=int(server.get('min_count', 1)),
        max_count=int(server['max_count']) if 'max_count' in server else None,
        metadata=server.get('metadata'), personality=server.get('personality'),
        disk_config=server.get('OS-DCF:diskConfig'), admin_password=server.get('adminPass'),
        description=server.get('description'), hostname=server.get('hostname'),
        config_drive=strutils.bool_from_string(server.get('config_drive', False)),
        user_data=server.get('user_data'),
        access_ip_v4=server.get('accessIPv4'), access_ip_v6=server.get('accessIPv6'),
        tags=tuple(server.get('tags', ())),
        # An empty list asks for what omitting the key does, as upstream.
        networks=server.get('networks') or None,
        security_groups=tuple(g['name'] for g in server.get('security_groups') or ()),
        trusted_certs=server.get('trusted_image_certificates'),
        supports_multiattach=supports_multiattach,
        scheduler_hints=(body.get('os:scheduler_hints')
                         or body.get('OS-SCH-HNT:scheduler_hints')))


@validation.schema(schemas.update_v2_1, mv.MIN, mv.before(mv.DESCRIPTION))
@validation.schema(schemas.update_v2_19, mv.DESCRIPTION, mv.before(mv.HOSTNAME_FOR_USERS))
@validation.schema(schemas.update_v2_90, mv.HOSTNAME_FOR_USERS, mv.before(mv.PINNED_AZ_UPDATE))
@validation.schema(schemas.update_v2_104, mv.PINNED_AZ_UPDATE)
def update(req, server_id, body):
    ctx = req.context
    instance = _get(req, server_id)
    ctx.can(policies.UPDATE, target=_target(instance))
    server = body['server']
    values = {}
    for key, column in (('name', 'display_name'), ('description', 'display_description'),
                        ('accessIPv4', 'access_ip_v4'), ('accessIPv6', 'access_ip_v6'),
                        ('hostname', 'hostname')):
        if key in server:
            values[column] = server[key]
    if 'OS-DCF:diskConfig' in server:
        values['system_metadata'] = dict(instance['system_metadata'] or {},
                                         disk_config=server['OS-DCF:diskConfig'])
    if 'pinned_availability_zone' in server:
        pin = req.app.compute_api.servers.pinned_zone_value(instance,
                                                            server['pinned_availability_zone'])
        values['system_metadata'] = dict(values.get('system_metadata')
                                         or instance['system_metadata'] or {}, pinned_az=pin)
    if values:
        instance = req.app.compute_api.servers.update(ctx, instance, values)
    body = views.show(_view_context(req, [instance]), instance)
    if not req.is_at_least(mv.FULL_UPDATE_BODY):
        body = trim_before_2_75(body)
    return wsgi.json_response({'server': body})


def trim_before_2_75(body):
    """Update and rebuild answered with the short server body before 2.75."""
    return {k: v for k, v in body.items()
            if not k.startswith(_DETAIL_ONLY_PREFIXES) and k not in _DETAIL_ONLY}


def delete(req, server_id):
    ctx = req.context
    instance = _get(req, server_id)
    ctx.can(policies.DELETE, target=_target(instance))
    req.app.compute_api.deletion.delete(ctx, instance)
    return wsgi.empty_response(204)


def ips_index(req, server_id):
    instance = _get(req, server_id)
    req.context.can(policies.IPS_INDEX, target=_target(instance))
    # From the network info cache, without the OS-EXT-IPS keys, as upstream.
    return wsgi.json_response({'addresses': net_model.addresses(
        instance['network_info'] or [], extended=False)})


def ips_show(req, server_id, network_label):
    instance = _get(req, server_id)
    req.context.can(policies.IPS_SHOW, target=_target(instance))
    found = net_model.network_addresses(instance['network_info'] or [], network_label)
    if found is None:
        raise wsgi.fault(404, 'Instance is not a member of specified network')
    return wsgi.json_response({network_label: found})

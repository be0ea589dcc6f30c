"""The ONE route table of the compute API, and the dispatcher that applies it."""

import collections
import importlib
import re

from nova.api import microversion as mv
from nova.api import wsgi


class Handler:
    """A handler function, imported with its module on its route's first request.

    The handler modules with their schemas and views are about 3 MB of Python
    objects, most for routes a given deployment may never serve; a route
    resolves its function once, on the first request it dispatches (Python's
    import lock serialises concurrent first requests). The unit tests resolve
    every route's handler, so a wrong name fails there, not in production.
    """

    __slots__ = ('module', 'name', '_func')

    def __init__(self, module, name):
        self.module = module
        self.name = name
        self._func = None

    def resolve(self):
        func = self._func
        if func is None:
            module = importlib.import_module('nova.api.handlers.' + self.module)
            func = self._func = getattr(module, self.name)
        return func

    def __call__(self, *args, **kwargs):
        return self.resolve()(*args, **kwargs)

    def __getattr__(self, attr):
        # The function's own attributes, e.g. the schemas validation sets.
        return getattr(self.resolve(), attr)

    def __repr__(self):
        return '<handler nova.api.handlers.%s.%s>' % (self.module, self.name)


class _Handlers:
    """``name.function`` in the route table below names a Handler."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        return Handler(self._module, name)


admin_actions = _Handlers('admin_actions')
aggregates = _Handlers('aggregates')
assisted_volume_snapshots = _Handlers('assisted_volume_snapshots')
extensions = _Handlers('extensions')
flavor_extras = _Handlers('flavor_extras')
flavors = _Handlers('flavors')
floating_ips = _Handlers('floating_ips')
hosts = _Handlers('hosts')
hypervisors = _Handlers('hypervisors')
images = _Handlers('images')
instance_actions = _Handlers('instance_actions')
interfaces = _Handlers('interfaces')
keypairs = _Handlers('keypairs')
limits = _Handlers('limits')
live_migrate = _Handlers('live_migrate')
evacuate = _Handlers('evacuate')
migrations = _Handlers('migrations')
networks_proxy = _Handlers('networks_proxy')
quota_classes = _Handlers('quota_classes')
quota_sets = _Handlers('quota_sets')
remote_consoles = _Handlers('remote_consoles')
rescue = _Handlers('rescue')
resize_shelve = _Handlers('resize_shelve')
security_groups = _Handlers('security_groups')
server_actions = _Handlers('server_actions')
server_external_events = _Handlers('server_external_events')
server_groups = _Handlers('server_groups')
server_metadata = _Handlers('server_metadata')
server_migrations = _Handlers('server_migrations')
server_password = _Handlers('server_password')
server_tags = _Handlers('server_tags')
servers = _Handlers('servers')
services = _Handlers('services')
usage = _Handlers('usage')
versions = _Handlers('versions')
volume_attachments = _Handlers('volume_attachments')
volumes_proxy = _Handlers('volumes_proxy')

Method = collections.namedtuple('Method', 'handler min_version max_version')


def m(handler, min_version=mv.MIN, max_version=mv.MAX):
    return Method(handler, min_version, max_version)


TAGS = mv.TAGS
PROXY = mv.PROXY_APIS_LAST
NET_ACTIONS = mv.NETWORK_ACTIONS_LAST


def proxy(handler):
    """The proxy APIs to the image and volume services end at 2.35, as upstream."""
    return Method(handler, mv.MIN, PROXY)


# POST /servers/{id}/action: the action key of the body -> its handler and the
# microversion range that serves it; outside that range the action answers 404.
SERVER_ACTIONS = {
    'reboot': m(server_actions.reboot),
    'os-stop': m(server_actions.stop),
    'os-start': m(server_actions.start),
    'pause': m(server_actions.pause),
    'unpause': m(server_actions.unpause),
    'suspend': m(server_actions.suspend),
    'resume': m(server_actions.resume),
    'lock': m(server_actions.lock),
    'unlock': m(server_actions.unlock),
    'os-getConsoleOutput': m(server_actions.console_output),
    'createImage': m(server_actions.create_image),
    'rebuild': m(server_actions.rebuild),
    'changePassword': m(server_password.change_password),
    'rescue': m(rescue.rescue),
    'unrescue': m(rescue.unrescue),
    'resize': m(resize_shelve.resize),
    'confirmResize': m(resize_shelve.confirm_resize),
    'revertResize': m(resize_shelve.revert_resize),
    'migrate': m(resize_shelve.migrate),
    'os-migrateLive': m(live_migrate.migrate_live),
    'evacuate': m(evacuate.evacuate),
    'shelve': m(resize_shelve.shelve),
    'shelveOffload': m(resize_shelve.shelve_offload),
    'unshelve': m(resize_shelve.unshelve),
    'os-resetState': m(admin_actions.reset_state),
    'injectNetworkInfo': m(admin_actions.inject_network_info),
    'createBackup': m(admin_actions.create_backup),
    'restore': m(admin_actions.restore),
    'forceDelete': m(admin_actions.force_delete),
    'addFloatingIp': m(floating_ips.add_floating_ip, max_version=NET_ACTIONS),
    'removeFloatingIp': m(floating_ips.remove_floating_ip, max_version=NET_ACTIONS),
    'addFixedIp': m(floating_ips.add_fixed_ip, max_version=NET_ACTIONS),
    'removeFixedIp': m(floating_ips.remove_fixed_ip, max_version=NET_ACTIONS),
    'addSecurityGroup': m(security_groups.add_security_group),
    'removeSecurityGroup': m(security_groups.remove_security_group),
    'os-getVNCConsole': m(remote_consoles.get_vnc_console,
                          max_version=mv.LEGACY_CONSOLE_ACTIONS_LAST),
    'os-getSerialConsole': m(remote_consoles.get_serial_console,
                             max_version=mv.LEGACY_CONSOLE_ACTIONS_LAST),
    'os-getSPICEConsole': m(remote_consoles.get_spice_console,
                            max_version=mv.LEGACY_CONSOLE_ACTIONS_LAST),
    'os-getRDPConsole': m(remote_consoles.get_rdp_console,
                          max_version=mv.LEGACY_CONSOLE_ACTIONS_LAST),
}


def server_action(req, server_id):
    """Dispatch POST /servers/{id}/action on its one key through SERVER_ACTIONS."""
    from nova.api.handlers import server_actions as actions
    name, body = actions.action_name(req)
    method = SERVER_ACTIONS.get(name)
    if method is None:
        if name in actions.UPSTREAM_ONLY:
            return actions.unsupported(req, server_id, body=body)
        raise actions.no_such_action(name)
    if not method.min_version <= req.api_version <= method.max_version:
        raise actions.no_such_action(name, status=404)
    return method.handler(req, server_id, body=body)


# Paths are below /v2.1. Each method names its handler and the microversion
# range that serves it; outside that range the route answers 404.
ROUTES = [
    ('', {'GET': m(versions.show_v21)}),
    ('/', {'GET': m(versions.show_v21)}),
    ('/flavors', {'GET': m(flavors.index), 'POST': m(flavors.create)}),
    ('/flavors/detail', {'GET': m(flavors.detail)}),
    ('/flavors/{flavor_id}', {'GET': m(flavors.show), 'DELETE': m(flavors.delete),
                              'PUT': m(flavors.update, mv.FLAVOR_DESCRIPTION)}),
    ('/flavors/{flavor_id}/action', {'POST': m(flavor_extras.action)}),
    ('/flavors/{flavor_id}/os-flavor-access', {'GET': m(flavor_extras.access_index)}),
    ('/flavors/{flavor_id}/os-extra_specs', {'GET': m(flavor_extras.specs_index),
                                             'POST': m(flavor_extras.specs_create)}),
    ('/flavors/{flavor_id}/os-extra_specs/{key}', {'GET': m(flavor_extras.specs_show),
                                                   'PUT': m(flavor_extras.specs_update),
                                                   'DELETE': m(flavor_extras.specs_delete)}),
    ('/os-keypairs', {'GET': m(keypairs.index), 'POST': m(keypairs.create)}),
    ('/os-keypairs/{keypair_name}', {'GET': m(keypairs.show), 'DELETE': m(keypairs.delete)}),
    ('/os-aggregates', {'GET': m(aggregates.index), 'POST': m(aggregates.create)}),
    ('/os-aggregates/{aggregate_id}', {'GET': m(aggregates.show), 'PUT': m(aggregates.update),
                                       'DELETE': m(aggregates.delete)}),
    ('/os-aggregates/{aggregate_id}/action', {'POST': m(aggregates.action)}),
    ('/os-availability-zone', {'GET': m(aggregates.az_index)}),
    ('/os-availability-zone/detail', {'GET': m(aggregates.az_detail)}),
    ('/os-hosts', {'GET': m(hosts.index, max_version=mv.HOSTS_LAST)}),
    ('/os-hosts/{host_name}', {'GET': m(hosts.show, max_version=mv.HOSTS_LAST),
                               'PUT': m(hosts.update, max_version=mv.HOSTS_LAST)}),
    ('/os-hosts/{host_name}/reboot', {'GET': m(hosts.reboot,
                                               max_version=mv.HOSTS_LAST)}),
    ('/os-hosts/{host_name}/shutdown', {'GET': m(hosts.shutdown,
                                                 max_version=mv.HOSTS_LAST)}),
    ('/os-hosts/{host_name}/startup', {'GET': m(hosts.startup,
                                                max_version=mv.HOSTS_LAST)}),
    ('/os-services', {'GET': m(services.index)}),
    ('/os-services/{service_id}', {'PUT': m(services.update), 'DELETE': m(services.delete)}),
    ('/os-hypervisors', {'GET': m(hypervisors.index)}),
    ('/os-hypervisors/detail', {'GET': m(hypervisors.detail)}),
    ('/os-hypervisors/statistics',
     {'GET': m(hypervisors.statistics, max_version=mv.HYPERVISOR_STATS_LAST)}),
    ('/os-hypervisors/{hypervisor_hostname_pattern}/search',
     {'GET': m(hypervisors.search, max_version=mv.HYPERVISOR_ID_PATHS_LAST)}),
    ('/os-hypervisors/{hypervisor_hostname_pattern}/servers',
     {'GET': m(hypervisors.servers, max_version=mv.HYPERVISOR_ID_PATHS_LAST)}),
    ('/os-hypervisors/{hypervisor_id}/uptime', {'GET': m(hypervisors.uptime,
                                                         max_version=mv.HYPERVISOR_STATS_LAST)}),
    ('/os-hypervisors/{hypervisor_id}', {'GET': m(hypervisors.show)}),
    ('/servers', {'GET': m(servers.index), 'POST': m(servers.create)}),
    ('/servers/detail', {'GET': m(servers.detail)}),
    ('/servers/{server_id}', {'GET': m(servers.show), 'PUT': m(servers.update),
                              'DELETE': m(servers.delete)}),
    ('/servers/{server_id}/action', {'POST': m(server_action)}),
    ('/servers/{server_id}/ips', {'GET': m(servers.ips_index)}),
    ('/servers/{server_id}/topology', {'GET': m(servers.topology, mv.SERVER_TOPOLOGY)}),
    ('/servers/{server_id}/ips/{network_label}', {'GET': m(servers.ips_show)}),
    ('/servers/{server_id}/metadata', {'GET': m(server_metadata.index),
                                       'POST': m(server_metadata.create),
                                       'PUT': m(server_metadata.update_all)}),
    ('/servers/{server_id}/metadata/{key}', {'GET': m(server_metadata.show),
                                             'PUT': m(server_metadata.update),
                                             'DELETE': m(server_metadata.delete)}),
    ('/servers/{server_id}/tags', {'GET': m(server_tags.index, TAGS),
                                   'PUT': m(server_tags.update_all, TAGS),
                                   'DELETE': m(server_tags.delete_all, TAGS)}),
    ('/servers/{server_id}/tags/{tag}', {'GET': m(server_tags.show, TAGS),
                                         'PUT': m(server_tags.update, TAGS),
                                         'DELETE': m(server_tags.delete, TAGS)}),
    ('/servers/{server_id}/os-volume_attachments',
     {'GET': m(volume_attachments.index), 'POST': m(volume_attachments.create)}),
    ('/servers/{server_id}/os-volume_attachments/{volume_id}',
     {'GET': m(volume_attachments.show), 'PUT': m(volume_attachments.update),
      'DELETE': m(volume_attachments.delete)}),
    ('/servers/{server_id}/remote-consoles',
     {'POST': m(remote_consoles.create, mv.REMOTE_CONSOLES)}),
    ('/os-console-auth-tokens/{console_token}', {'GET': m(remote_consoles.token_show)}),
    ('/servers/{server_id}/os-server-password', {'GET': m(server_password.show),
                                                 'DELETE': m(server_password.clear)}),
    ('/servers/{server_id}/os-instance-actions', {'GET': m(instance_actions.index)}),
    ('/servers/{server_id}/os-instance-actions/{request_id}',
     {'GET': m(instance_actions.show)}),
    ('/limits', {'GET': m(limits.index)}),
    ('/os-quota-sets/{project_id}', {'GET': m(quota_sets.show), 'PUT': m(quota_sets.update),
                                     'DELETE': m(quota_sets.delete)}),
    ('/os-quota-sets/{project_id}/defaults', {'GET': m(quota_sets.defaults)}),
    ('/os-quota-sets/{project_id}/detail', {'GET': m(quota_sets.detail)}),
    ('/os-quota-class-sets/{class_name}', {'GET': m(quota_classes.show),
                                           'PUT': m(quota_classes.update)}),
    ('/servers/{server_id}/diagnostics', {'GET': m(admin_actions.diagnostics)}),
    ('/servers/{server_id}/migrations', {'GET': m(server_migrations.index, mv.MIGRATION_IDS)}),
    ('/servers/{server_id}/migrations/{migration_id}', {
        'GET': m(server_migrations.show, mv.MIGRATION_IDS),
        'DELETE': m(server_migrations.delete, mv.LIVE_MIGRATE_ABORT)}),
    ('/servers/{server_id}/migrations/{migration_id}/action', {
        'POST': m(server_migrations.action, mv.LIVE_MIGRATE_FORCE_COMPLETE)}),
    ('/os-migrations', {'GET': m(migrations.index)}),
    ('/os-simple-tenant-usage', {'GET': m(usage.index)}),
    ('/os-simple-tenant-usage/{tenant_id}', {'GET': m(usage.show)}),
    ('/os-instance_usage_audit_log', {'GET': m(usage.audit_index)}),
    ('/os-instance_usage_audit_log/{before}', {'GET': m(usage.audit_show)}),
    ('/extensions', {'GET': m(extensions.index)}),
    ('/extensions/{alias}', {'GET': m(extensions.show)}),
    ('/images', {'GET': proxy(images.index)}),
    ('/images/detail', {'GET': proxy(images.detail)}),
    ('/images/{image_id}', {'GET': proxy(images.show), 'DELETE': proxy(images.delete)}),
    ('/images/{image_id}/metadata', {'GET': proxy(images.metadata_index),
                                     'POST': proxy(images.metadata_create),
                                     'PUT': proxy(images.metadata_update_all)}),
    ('/images/{image_id}/metadata/{key}', {'GET': proxy(images.metadata_show),
                                           'PUT': proxy(images.metadata_update),
                                           'DELETE': proxy(images.metadata_delete)}),
    ('/os-volumes', {'GET': proxy(volumes_proxy.volume_index),
                     'POST': proxy(volumes_proxy.volume_create)}),
    ('/os-volumes/detail', {'GET': proxy(volumes_proxy.volume_detail)}),
    ('/os-volumes/{volume_id}', {'GET': proxy(volumes_proxy.volume_show),
                                 'DELETE': proxy(volumes_proxy.volume_delete)}),
    ('/os-snapshots', {'GET': proxy(volumes_proxy.snapshot_index),
                       'POST': proxy(volumes_proxy.snapshot_create)}),
    ('/os-snapshots/detail', {'GET': proxy(volumes_proxy.snapshot_detail)}),
    ('/os-snapshots/{snapshot_id}', {'GET': proxy(volumes_proxy.snapshot_show),
                                     'DELETE': proxy(volumes_proxy.snapshot_delete)}),
    ('/os-networks', {'GET': proxy(networks_proxy.index), 'POST': m(networks_proxy.gone)}),
    ('/os-networks/add', {'POST': m(networks_proxy.gone)}),
    ('/os-networks/{network_id}', {'GET': proxy(networks_proxy.show),
                                   'DELETE': m(networks_proxy.gone)}),
    ('/os-networks/{network_id}/action', {'POST': m(networks_proxy.gone)}),
    ('/os-tenant-networks', {'GET': proxy(networks_proxy.tenant_index),
                             'POST': m(networks_proxy.gone, max_version=PROXY)}),
    ('/os-tenant-networks/{network_id}', {'GET': proxy(networks_proxy.tenant_show),
                                          'DELETE': m(networks_proxy.gone,
                                                      max_version=PROXY)}),
    ('/os-security-groups', {'GET': proxy(security_groups.index),
                             'POST': proxy(security_groups.create)}),
    ('/os-security-groups/{security_group_id}', {
        'GET': proxy(security_groups.show), 'PUT': proxy(security_groups.update),
        'DELETE': proxy(security_groups.delete)}),
    ('/os-security-group-rules', {'POST': proxy(security_groups.rule_create)}),
    ('/os-security-group-rules/{security_group_rule_id}',
     {'DELETE': proxy(security_groups.rule_delete)}),
    ('/servers/{server_id}/os-security-groups', {'GET': proxy(security_groups.server_index)}),
    ('/os-floating-ips', {'GET': proxy(floating_ips.index), 'POST': proxy(floating_ips.create)}),
    ('/os-floating-ips/{floating_ip_id}', {'GET': proxy(floating_ips.show),
                                           'DELETE': proxy(floating_ips.delete)}),
    ('/os-floating-ip-pools', {'GET': proxy(floating_ips.pools)}),
    ('/servers/{server_id}/os-interface', {'GET': m(interfaces.index),
                                           'POST': m(interfaces.create)}),
    ('/servers/{server_id}/os-interface/{port_id}', {'GET': m(interfaces.show),
                                                     'DELETE': m(interfaces.delete)}),
    ('/os-assisted-volume-snapshots', {'POST': m(assisted_volume_snapshots.create)}),
    ('/os-assisted-volume-snapshots/{snapshot_id}',
     {'DELETE': m(assisted_volume_snapshots.delete)}),
    ('/os-server-external-events', {'POST': m(server_external_events.create)}),
    ('/os-server-groups', {'GET': m(server_groups.index), 'POST': m(server_groups.create)}),
    ('/os-server-groups/{server_group_id}', {'GET': m(server_groups.show),
                                             'DELETE': m(server_groups.delete)}),
]


def _compile(template):
    pattern = re.sub(r'\{(\w+)\}', r'(?P<\1>[^/]+)', template)
    return re.compile('^' + pattern + '$')


_COMPILED = [(_compile(path), methods) for path, methods in ROUTES]
# Route paths that are served at any version; used to tell 404 from 405.


def dispatch(req, path):
    """Find and call the handler for ``path`` (relative to /v2.1)."""
    for regex, methods in _COMPILED:
        match = regex.match(path)
        if not match:
            continue
        served = {name: meth for name, meth in methods.items()
                  if meth.min_version <= req.api_version <= meth.max_version}
        if not served:
            break
        method = served.get(req.method)
        if method is None and req.method == 'HEAD':
            method = served.get('GET')
        if method is None and req.method in methods:
            break  # Served at other microversions only: 404, as upstream.
        if method is None:
            allow = ', '.join(sorted(served))
            raise wsgi.fault(405, 'The method %s is not allowed for this resource.' % req.method,
                             headers={'Allow': allow})
        return method.handler(req, **match.groupdict())
    raise wsgi.fault(404, 'The resource could not be found.')

"""Policies of os-services, os-hypervisors, os-availability-zone, os-aggregates, os-hosts."""

from nova.policies import _helpers, base

SERVICES = 'os_compute_api:os-services:%s'
HYPERVISORS = 'os_compute_api:os-hypervisors:%s'
AZ = 'os_compute_api:os-availability-zone:%s'
AGGREGATES = 'os_compute_api:os-aggregates:%s'
HOSTS = 'os_compute_api:os-hosts:%s'

SERVICES_LIST = SERVICES % 'list'
SERVICES_UPDATE = SERVICES % 'update'
SERVICES_DELETE = SERVICES % 'delete'
HYPERVISORS_LIST = HYPERVISORS % 'list'
HYPERVISORS_LIST_DETAIL = HYPERVISORS % 'list-detail'
HYPERVISORS_STATISTICS = HYPERVISORS % 'statistics'
HYPERVISORS_SHOW = HYPERVISORS % 'show'
HYPERVISORS_UPTIME = HYPERVISORS % 'uptime'
HYPERVISORS_SEARCH = HYPERVISORS % 'search'
HYPERVISORS_SERVERS = HYPERVISORS % 'servers'
AZ_LIST = AZ % 'list'
AZ_DETAIL = AZ % 'detail'
AGGREGATES_INDEX = AGGREGATES % 'index'
AGGREGATES_CREATE = AGGREGATES % 'create'
AGGREGATES_SHOW = AGGREGATES % 'show'
AGGREGATES_UPDATE = AGGREGATES % 'update'
AGGREGATES_DELETE = AGGREGATES % 'delete'
AGGREGATES_ADD_HOST = AGGREGATES % 'add_host'
AGGREGATES_REMOVE_HOST = AGGREGATES % 'remove_host'
AGGREGATES_SET_METADATA = AGGREGATES % 'set_metadata'
HOSTS_LIST = HOSTS % 'list'
HOSTS_SHOW = HOSTS % 'show'
HOSTS_UPDATE = HOSTS % 'update'
HOSTS_REBOOT = HOSTS % 'reboot'
HOSTS_SHUTDOWN = HOSTS % 'shutdown'
HOSTS_START = HOSTS % 'start'

_A = base.ADMIN
rules = [
    _helpers.rule(SERVICES_LIST, _A, 'List all running compute services', 'GET',
                  '/os-services'),
    _helpers.rule(SERVICES_UPDATE, _A, 'Update a compute service', 'PUT',
                  '/os-services/{service_id}'),
    _helpers.rule(SERVICES_DELETE, _A, 'Delete a compute service', 'DELETE',
                  '/os-services/{service_id}'),
    _helpers.rule(HYPERVISORS_LIST, _A, 'List hypervisors', 'GET', '/os-hypervisors'),
    _helpers.rule(HYPERVISORS_LIST_DETAIL, _A, 'List hypervisors with details', 'GET',
                  '/os-hypervisors/detail'),
    _helpers.rule(HYPERVISORS_STATISTICS, _A, 'Hypervisor statistics (until 2.87)',
                  'GET', '/os-hypervisors/statistics'),
    _helpers.rule(HYPERVISORS_SHOW, _A, 'Show a hypervisor', 'GET',
                  '/os-hypervisors/{hypervisor_id}'),
    _helpers.rule(HYPERVISORS_UPTIME, _A, 'Hypervisor uptime (until 2.87)', 'GET',
                  '/os-hypervisors/{hypervisor_id}/uptime'),
    _helpers.rule(HYPERVISORS_SEARCH, _A, 'Search hypervisors (until 2.52)', 'GET',
                  '/os-hypervisors/{hypervisor_hostname_pattern}/search'),
    _helpers.rule(HYPERVISORS_SERVERS, _A, 'Servers of hypervisors (until 2.52)', 'GET',
                  '/os-hypervisors/{hypervisor_hostname_pattern}/servers'),
    _helpers.rule(AZ_LIST, base.ANY, 'List availability zones', 'GET',
                  '/os-availability-zone'),
    _helpers.rule(AZ_DETAIL, _A, 'List availability zones with hosts', 'GET',
                  '/os-availability-zone/detail'),
    _helpers.rule(AGGREGATES_INDEX, _A, 'List aggregates', 'GET', '/os-aggregates'),
    _helpers.rule(AGGREGATES_CREATE, _A, 'Create an aggregate', 'POST', '/os-aggregates'),
    _helpers.rule(AGGREGATES_SHOW, _A, 'Show an aggregate', 'GET',
                  '/os-aggregates/{aggregate_id}'),
    _helpers.rule(AGGREGATES_UPDATE, _A, 'Update an aggregate', 'PUT',
                  '/os-aggregates/{aggregate_id}'),
    _helpers.rule(AGGREGATES_DELETE, _A, 'Delete an aggregate', 'DELETE',
                  '/os-aggregates/{aggregate_id}'),
    _helpers.rule(AGGREGATES_ADD_HOST, _A, 'Add a host to an aggregate', 'POST',
                  '/os-aggregates/{aggregate_id}/action (add_host)'),
    _helpers.rule(AGGREGATES_REMOVE_HOST, _A, 'Remove a host from an aggregate', 'POST',
                  '/os-aggregates/{aggregate_id}/action (remove_host)'),
    _helpers.rule(AGGREGATES_SET_METADATA, _A, 'Set aggregate metadata', 'POST',
                  '/os-aggregates/{aggregate_id}/action (set_metadata)'),
    _helpers.rule(HOSTS_LIST, _A, 'List hosts (until 2.42)', 'GET', '/os-hosts'),
    _helpers.rule(HOSTS_SHOW, _A, 'Show a host (until 2.42)', 'GET', '/os-hosts/{host_name}'),
    _helpers.rule(HOSTS_UPDATE, _A, 'Update a host (until 2.42)', 'PUT',
                  '/os-hosts/{host_name}'),
    _helpers.rule(HOSTS_REBOOT, _A, 'Reboot a host (until 2.42)', 'GET',
                  '/os-hosts/{host_name}/reboot'),
    _helpers.rule(HOSTS_SHUTDOWN, _A, 'Shut down a host (until 2.42)', 'GET',
                  '/os-hosts/{host_name}/shutdown'),
    _helpers.rule(HOSTS_START, _A, 'Start a host (until 2.42)', 'GET',
                  '/os-hosts/{host_name}/startup'),
]


def list_rules():
    return rules

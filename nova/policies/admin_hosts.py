"""Policies of os-services, os-hypervisors, os-availability-zone, os-aggregates, os-hosts."""

from nova.policies import _helpers, base

SERVICES = 'os_compute_api:os-services:%s'
HYPERVISORS = 'os_compute_api:os-hypervisors:%s'
AZ = 'os_compute_api:os-availability-zone:%s'
AGGREGATES = 'os_compute_api:os-aggregates:%s'
HOSTS = 'os_compute_api:os-hosts:%s'

_A = base.ADMIN
rules = [
    _helpers.rule(SERVICES % 'list', _A, 'List all running compute services', 'GET',
                  '/os-services'),
    _helpers.rule(SERVICES % 'update', _A, 'Update a compute service', 'PUT',
                  '/os-services/{service_id}'),
    _helpers.rule(SERVICES % 'delete', _A, 'Delete a compute service', 'DELETE',
                  '/os-services/{service_id}'),
    _helpers.rule(HYPERVISORS % 'list', _A, 'List hypervisors', 'GET', '/os-hypervisors'),
    _helpers.rule(HYPERVISORS % 'list-detail', _A, 'List hypervisors with details', 'GET',
                  '/os-hypervisors/detail'),
    _helpers.rule(HYPERVISORS % 'statistics', _A, 'Hypervisor statistics (until 2.87)',
                  'GET', '/os-hypervisors/statistics'),
    _helpers.rule(HYPERVISORS % 'show', _A, 'Show a hypervisor', 'GET',
                  '/os-hypervisors/{hypervisor_id}'),
    _helpers.rule(HYPERVISORS % 'uptime', _A, 'Hypervisor uptime (until 2.87)', 'GET',
                  '/os-hypervisors/{hypervisor_id}/uptime'),
    _helpers.rule(HYPERVISORS % 'search', _A, 'Search hypervisors (until 2.52)', 'GET',
                  '/os-hypervisors/{hypervisor_hostname_pattern}/search'),
    _helpers.rule(HYPERVISORS % 'servers', _A, 'Servers of hypervisors (until 2.52)', 'GET',
                  '/os-hypervisors/{hypervisor_hostname_pattern}/servers'),
    _helpers.rule(AZ % 'list', base.ANY, 'List availability zones', 'GET',
                  '/os-availability-zone'),
    _helpers.rule(AZ % 'detail', _A, 'List availability zones with hosts', 'GET',
                  '/os-availability-zone/detail'),
    _helpers.rule(AGGREGATES % 'index', _A, 'List aggregates', 'GET', '/os-aggregates'),
    _helpers.rule(AGGREGATES % 'create', _A, 'Create an aggregate', 'POST', '/os-aggregates'),
    _helpers.rule(AGGREGATES % 'show', _A, 'Show an aggregate', 'GET',
                  '/os-aggregates/{aggregate_id}'),
    _helpers.rule(AGGREGATES % 'update', _A, 'Update an aggregate', 'PUT',
                  '/os-aggregates/{aggregate_id}'),
    _helpers.rule(AGGREGATES % 'delete', _A, 'Delete an aggregate', 'DELETE',
                  '/os-aggregates/{aggregate_id}'),
    _helpers.rule(AGGREGATES % 'add_host', _A, 'Add a host to an aggregate', 'POST',
                  '/os-aggregates/{aggregate_id}/action (add_host)'),
    _helpers.rule(AGGREGATES % 'remove_host', _A, 'Remove a host from an aggregate', 'POST',
                  '/os-aggregates/{aggregate_id}/action (remove_host)'),
    _helpers.rule(AGGREGATES % 'set_metadata', _A, 'Set aggregate metadata', 'POST',
                  '/os-aggregates/{aggregate_id}/action (set_metadata)'),
    _helpers.rule(HOSTS % 'list', _A, 'List hosts (until 2.42)', 'GET', '/os-hosts'),
    _helpers.rule(HOSTS % 'show', _A, 'Show a host (until 2.42)', 'GET', '/os-hosts/{host_name}'),
    _helpers.rule(HOSTS % 'update', _A, 'Update a host (until 2.42)', 'PUT',
                  '/os-hosts/{host_name}'),
    _helpers.rule(HOSTS % 'reboot', _A, 'Reboot a host (until 2.42)', 'GET',
                  '/os-hosts/{host_name}/reboot'),
    _helpers.rule(HOSTS % 'shutdown', _A, 'Shut down a host (until 2.42)', 'GET',
                  '/os-hosts/{host_name}/shutdown'),
    _helpers.rule(HOSTS % 'start', _A, 'Start a host (until 2.42)', 'GET',
                  '/os-hosts/{host_name}/startup'),
]


def list_rules():
    return rules

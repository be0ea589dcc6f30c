"""Policies of simple tenant usage, the usage audit log, migrations and extensions."""

from oslo_policy import policy

from nova.policies import base

USAGE_LIST = 'os_compute_api:os-simple-tenant-usage:list'
USAGE_SHOW = 'os_compute_api:os-simple-tenant-usage:show'
AUDIT_LIST = 'os_compute_api:os-instance-usage-audit-log:list'
AUDIT_SHOW = 'os_compute_api:os-instance-usage-audit-log:show'
MIGRATIONS = 'os_compute_api:os-migrations:index'
SERVER_MIGRATIONS = 'os_compute_api:servers:migrations:index'
EXTENSIONS = 'os_compute_api:extensions'


def _rule(name, check, description, path):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{'method': 'GET', 'path': path}], scope_types=['project'])


rules = [
    _rule(USAGE_LIST, base.ADMIN, 'List per-project usage of all projects',
          '/os-simple-tenant-usage'),
    _rule(USAGE_SHOW, base.PROJECT_READER_OR_ADMIN, 'Show the usage of one project',
          '/os-simple-tenant-usage/{tenant_id}'),
    _rule(AUDIT_LIST, base.ADMIN, 'List the instance usage audit logs',
          '/os-instance_usage_audit_log'),
    _rule(AUDIT_SHOW, base.ADMIN, 'Show the instance usage audit log before a time',
          '/os-instance_usage_audit_log/{before_timestamp}'),
    _rule(MIGRATIONS, base.ADMIN, 'List migrations', '/os-migrations'),
    _rule(SERVER_MIGRATIONS, base.ADMIN, 'List the in-progress live migrations of a server',
          '/servers/{server_id}/migrations'),
    _rule(EXTENSIONS, base.ANY, 'List available extensions and show one', '/extensions'),
]


def list_rules():
    return rules

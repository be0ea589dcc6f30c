"""Policies of the volume proxy os-volumes / os-snapshots (upstream names)."""

from oslo_policy import policy

from nova.policies import base

_ROOT = 'os_compute_api:os-volumes:%s'
VOLUMES_LIST = _ROOT % 'list'
VOLUMES_DETAIL = _ROOT % 'detail'
VOLUMES_CREATE = _ROOT % 'create'
VOLUMES_SHOW = _ROOT % 'show'
VOLUMES_DELETE = _ROOT % 'delete'
SNAPSHOTS_LIST = _ROOT % 'snapshots:list'
SNAPSHOTS_DETAIL = _ROOT % 'snapshots:detail'
SNAPSHOTS_CREATE = _ROOT % 'snapshots:create'
SNAPSHOTS_SHOW = _ROOT % 'snapshots:show'
SNAPSHOTS_DELETE = _ROOT % 'snapshots:delete'


def _rule(name, check, description, method, path):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{'method': method, 'path': path}], scope_types=['project'])


READER = base.PROJECT_READER_OR_ADMIN
MEMBER = base.PROJECT_MEMBER_OR_ADMIN
rules = [
    _rule(VOLUMES_LIST, READER, 'List volumes (proxy)', 'GET', '/os-volumes'),
    _rule(VOLUMES_DETAIL, READER, 'List volumes with details (proxy)', 'GET',
          '/os-volumes/detail'),
    _rule(VOLUMES_CREATE, MEMBER, 'Create a volume (proxy)', 'POST', '/os-volumes'),
    _rule(VOLUMES_SHOW, READER, 'Show a volume (proxy)', 'GET', '/os-volumes/{volume_id}'),
    _rule(VOLUMES_DELETE, MEMBER, 'Delete a volume (proxy)', 'DELETE',
          '/os-volumes/{volume_id}'),
    _rule(SNAPSHOTS_LIST, READER, 'List volume snapshots (proxy)', 'GET', '/os-snapshots'),
    _rule(SNAPSHOTS_DETAIL, READER, 'List volume snapshots with details (proxy)', 'GET',
          '/os-snapshots/detail'),
    _rule(SNAPSHOTS_CREATE, MEMBER, 'Create a volume snapshot (proxy)', 'POST',
          '/os-snapshots'),
    _rule(SNAPSHOTS_SHOW, READER, 'Show a volume snapshot (proxy)', 'GET',
          '/os-snapshots/{snapshot_id}'),
    _rule(SNAPSHOTS_DELETE, MEMBER, 'Delete a volume snapshot (proxy)', 'DELETE',
          '/os-snapshots/{snapshot_id}'),
]


def list_rules():
    return rules

"""Response bodies of os-quota-sets, os-quota-class-sets and /limits, per microversion."""

from nova import quota
from nova.api import microversion as mv

_PERSONALITY = ('injected_files', 'injected_file_content_bytes', 'injected_file_path_bytes')
_SERVER_GROUPS = ('server_groups', 'server_group_members')

# Absolute limit names of each resource, as upstream's limits view.
_LIMIT_NAMES = (
    ('ram', 'maxTotalRAMSize'), ('instances', 'maxTotalInstances'),
    ('cores', 'maxTotalCores'), ('key_pairs', 'maxTotalKeypairs'),
    ('floating_ips', 'maxTotalFloatingIps'), ('metadata_items', 'maxServerMeta'),
    ('metadata_items', 'maxImageMeta'), ('injected_files', 'maxPersonality'),
    ('injected_file_content_bytes', 'maxPersonalitySize'),
    ('security_groups', 'maxSecurityGroups'),
    ('security_group_rules', 'maxSecurityGroupRules'),
    ('server_groups', 'maxServerGroups'), ('server_group_members', 'maxServerGroupMembers'),
)
_USED_NAMES = (
    ('ram', 'totalRAMUsed'), ('cores', 'totalCoresUsed'),
    ('instances', 'totalInstancesUsed'), ('floating_ips', 'totalFloatingIpsUsed'),
    ('security_groups', 'totalSecurityGroupsUsed'), ('server_groups', 'totalServerGroupsUsed'),
)


def quota_set_resources(req):
    """Resources a quota set shows at the request's microversion."""
    hidden = set()
    if req.is_at_least(mv.NETWORK_QUOTAS_REMOVED):
        hidden.update(quota.LEGACY_NETWORK)
    if req.is_at_least(mv.PERSONALITY_REMOVED):
        hidden.update(_PERSONALITY)
    return [r for r in quota.RESOURCES if r not in hidden]


def quota_class_resources(req):
    """Quota classes lost the network quotas and gained server groups only at 2.50."""
    if not req.is_at_least(mv.QUOTA_CLASS_SERVER_GROUPS):
        return [r for r in quota.RESOURCES if r not in _SERVER_GROUPS]
    hidden = set(quota.LEGACY_NETWORK)
    if req.is_at_least(mv.PERSONALITY_REMOVED):
        hidden.update(_PERSONALITY)
    return [r for r in quota.RESOURCES if r not in hidden]


def quota_set(req, values, project_id=None, key='quota_set', resources=None):
    """{key: {...}}; ``id`` only on show/defaults/detail, not on update (as upstream)."""
    body = {} if project_id is None else {'id': str(project_id)}
    for resource in resources or quota_set_resources(req):
        body[resource] = values[resource]
    return {key: body}


def quota_class_set(req, values, class_name=None):
    return quota_set(req, values, class_name, key='quota_class_set',
                     resources=quota_class_resources(req))


def limits(req, quotas):
    """{'limits': {'rate': [], 'absolute': {...}}} from {resource: {limit, in_use}}."""
    hidden = set()
    if req.is_at_least(mv.NETWORK_QUOTAS_REMOVED):
        hidden.update(('floating_ips', 'security_groups', 'security_group_rules'))
    if req.is_at_least(mv.PERSONALITY_REMOVED):
        hidden.update(('injected_files', 'injected_file_content_bytes'))
    absolute = {}
    for resource, name in _LIMIT_NAMES:
        if resource in hidden:
            continue
        if name == 'maxImageMeta' and req.is_at_least(mv.LIMITS_NO_IMAGE_META):
            continue
        absolute[name] = quotas[resource]['limit']
    for resource, name in _USED_NAMES:
        if resource not in hidden:
            absolute[name] = quotas[resource]['in_use']
    return {'limits': {'rate': [], 'absolute': absolute}}

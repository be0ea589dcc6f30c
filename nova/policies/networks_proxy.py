"""Policies of the deprecated network proxy os-networks (upstream names)."""

from oslo_policy import policy

from nova.policies import base

NETWORKS_LIST = 'os_compute_api:os-networks:list'
NETWORKS_SHOW = 'os_compute_api:os-networks:show'

rules = [
    policy.DocumentedRuleDefault(
        name=NETWORKS_LIST, check_str=base.PROJECT_READER_OR_ADMIN,
        description='List networks (proxy)',
        operations=[{'method': 'GET', 'path': '/os-networks'}], scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=NETWORKS_SHOW, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show a network (proxy)',
        operations=[{'method': 'GET', 'path': '/os-networks/{network_id}'}],
        scope_types=['project']),
]


def list_rules():
    return rules

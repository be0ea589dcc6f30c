"""Policies of /limits (upstream's names and defaults)."""

from oslo_policy import policy

from nova.policies import base

LIMITS = 'os_compute_api:limits'
OTHER_PROJECT = 'os_compute_api:limits:other_project'

rules = [
    policy.DocumentedRuleDefault(
        name=LIMITS, check_str=base.ANY,
        description='Show rate and absolute limits for the current user project',
        operations=[{'method': 'GET', 'path': '/limits'}], scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=OTHER_PROJECT, check_str=base.ADMIN,
        description='Show rate and absolute limits of another project',
        operations=[{'method': 'GET', 'path': '/limits'}], scope_types=['project']),
]


def list_rules():
    return rules

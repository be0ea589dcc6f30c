"""A short way to write one documented rule per operation."""

from oslo_policy import policy


def rule(name, check, description, method, path):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{'method': method, 'path': path}], scope_types=['project'])

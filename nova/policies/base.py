"""Base rules the per-resource policies are written in terms of."""

from oslo_policy import policy

ADMIN = 'rule:context_is_admin'
PROJECT_MEMBER = 'rule:project_member_api'
PROJECT_READER = 'rule:project_reader_api'
PROJECT_MEMBER_OR_ADMIN = 'rule:project_member_or_admin'
PROJECT_READER_OR_ADMIN = 'rule:project_reader_or_admin'
ANY = '@'

rules = [
    policy.RuleDefault('context_is_admin', 'role:admin',
                       'Decides what is required for the admin role.'),
    policy.RuleDefault('project_member_api', 'role:member and project_id:%(project_id)s',
                       'A member of the project that owns the resource.'),
    policy.RuleDefault('project_reader_api', 'role:reader and project_id:%(project_id)s',
                       'A reader of the project that owns the resource.'),
    policy.RuleDefault('project_member_or_admin',
                       'rule:project_member_api or rule:context_is_admin',
                       'A project member or an administrator.'),
    policy.RuleDefault('project_reader_or_admin',
                       'rule:project_reader_api or rule:context_is_admin',
                       'A project reader or an administrator.'),
]


def list_rules():
    return rules

"""Base rules the per-resource policies are written in terms of (upstream's personas).

Personas: an administrator holds the Keystone ``admin`` role (any project);
a project member (``member``) acts on its project's resources; a project
reader (``reader``) only reads them; a project manager (``manager``) gets
the project-level management APIs. Keystone's implied roles make admin
imply member and member imply reader.
"""

from oslo_policy import policy

ADMIN = 'rule:context_is_admin'
PROJECT_MEMBER = 'rule:project_member_api'
PROJECT_READER = 'rule:project_reader_api'
PROJECT_MANAGER_OR_ADMIN = 'rule:project_manager_or_admin'
PROJECT_MEMBER_OR_ADMIN = 'rule:project_member_or_admin'
PROJECT_READER_OR_ADMIN = 'rule:project_reader_or_admin'
ANY = '@'

rules = [
    policy.RuleDefault('context_is_admin', 'role:admin',
                       "Decides what is required for the 'is_admin:True' check "
                       "to succeed: who is an administrator."),
    policy.RuleDefault('project_manager_api', 'role:manager and project_id:%(project_id)s',
                       'A manager of the project that owns the resource.'),
    policy.RuleDefault('project_member_api', 'role:member and project_id:%(project_id)s',
                       'A member of the project that owns the resource.'),
    policy.RuleDefault('project_reader_api', 'role:reader and project_id:%(project_id)s',
                       'A reader of the project that owns the resource.'),
    policy.RuleDefault('project_manager_or_admin',
                       'rule:project_manager_api or rule:context_is_admin',
                       'A project manager or an administrator.'),
    policy.RuleDefault('project_member_or_admin',
                       'rule:project_member_api or rule:context_is_admin',
                       'A project member or an administrator.'),
    policy.RuleDefault('project_reader_or_admin',
                       'rule:project_reader_api or rule:context_is_admin',
                       'A project reader or an administrator.'),
]


def list_rules():
    return rules

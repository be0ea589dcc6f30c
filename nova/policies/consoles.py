"""Policies of remote consoles, console auth tokens and server passwords."""

from nova.policies import _helpers, base

REMOTE_CONSOLES = 'os_compute_api:os-remote-consoles'
CONSOLE_AUTH_TOKENS = 'os_compute_api:os-console-auth-tokens'
ADMIN_PASSWORD = 'os_compute_api:os-admin-password'
SERVER_PASSWORD_SHOW = 'os_compute_api:os-server-password:show'
SERVER_PASSWORD_CLEAR = 'os_compute_api:os-server-password:clear'

rules = [
    _helpers.rule(REMOTE_CONSOLES, base.PROJECT_MEMBER_OR_ADMIN,
                  'Generate a URL to a remote console of a server (also the '
                  'os-getVNCConsole and os-getSerialConsole actions before 2.6)',
                  'POST', '/servers/{server_id}/remote-consoles'),
    _helpers.rule(CONSOLE_AUTH_TOKENS, base.ADMIN,
                  'Show the connection details behind a console token',
                  'GET', '/os-console-auth-tokens/{console_token}'),
    _helpers.rule(ADMIN_PASSWORD, base.PROJECT_MEMBER_OR_ADMIN,
                  'Change the administrative password of a server (changePassword)',
                  'POST', '/servers/{server_id}/action (changePassword)'),
    _helpers.rule(SERVER_PASSWORD_SHOW, base.PROJECT_READER_OR_ADMIN,
                  'Show the encrypted administrative password of a server',
                  'GET', '/servers/{server_id}/os-server-password'),
    _helpers.rule(SERVER_PASSWORD_CLEAR, base.PROJECT_MEMBER_OR_ADMIN,
                  'Clear the encrypted administrative password of a server',
                  'DELETE', '/servers/{server_id}/os-server-password'),
]


def list_rules():
    return rules

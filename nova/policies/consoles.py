"""Policies of remote consoles and console auth tokens."""

from nova.policies import _helpers, base

REMOTE_CONSOLES = 'os_compute_api:os-remote-consoles'
CONSOLE_AUTH_TOKENS = 'os_compute_api:os-console-auth-tokens'

rules = [
    _helpers.rule(REMOTE_CONSOLES, base.PROJECT_MEMBER_OR_ADMIN,
                  'Generate a URL to a remote console of a server (also the '
                  'os-getVNCConsole and os-getSerialConsole actions before 2.6)',
                  'POST', '/servers/{server_id}/remote-consoles'),
    _helpers.rule(CONSOLE_AUTH_TOKENS, base.ADMIN,
                  'Show the connection details behind a console token',
                  'GET', '/os-console-auth-tokens/{console_token}'),
]


def list_rules():
    return rules

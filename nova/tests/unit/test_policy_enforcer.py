"""The policy enforcer: remembered decisions, and policy file changes still applied."""

import http.server
import os
import threading
import time

from oslo_config import cfg

from nova import context, policies, policy


def _conf(tmp_path, rules):
    path = tmp_path / 'policy.yaml'
    path.write_text(rules)
    conf = cfg.ConfigOpts()
    conf([], project='nova', default_config_files=[], default_config_dirs=[])
    enforcer = policy.Enforcer(conf, policy_file=str(path))
    enforcer.register_defaults(policies.list_rules())
    return enforcer, path


def _ctx(roles, project='p1', user='u1'):
    return context.RequestContext(user_id=user, project_id=project, roles=roles)


def _decide(enforcer, ctx, action='os_compute_api:os-keypairs:create', target=None):
    target = target or {'project_id': ctx.project_id, 'user_id': ctx.user_id}
    return enforcer.decide(action, target, ctx.to_policy_values())


def test_decisions_follow_credentials_and_target(tmp_path):
    enforcer, _path = _conf(tmp_path, '{}')
    member, reader = _ctx(['member', 'reader']), _ctx(['reader'])
    assert _decide(enforcer, member, 'os_compute_api:servers:create') is True
    assert _decide(enforcer, reader, 'os_compute_api:servers:create') is False
    # The same question asked again gets the same answer from memory...
    assert _decide(enforcer, member, 'os_compute_api:servers:create') is True
    assert _decide(enforcer, reader, 'os_compute_api:servers:create') is False
    # ...and another project's target is a different question.
    other = {'project_id': 'p2', 'user_id': 'u9'}
    assert _decide(enforcer, member, 'os_compute_api:servers:show', other) is False
    assert _decide(enforcer, member, 'os_compute_api:servers:show') is True
    admin = _ctx(['admin', 'member', 'reader'])
    assert _decide(enforcer, admin, 'os_compute_api:servers:show', other) is True


def test_a_changed_policy_file_applies_within_the_recheck_interval(tmp_path):
    enforcer, path = _conf(tmp_path, '{}')
    member = _ctx(['member', 'reader'])
    assert _decide(enforcer, member, 'os_compute_api:servers:create') is True
    path.write_text('"os_compute_api:servers:create": "role:admin"\n')
    # Make the change visible to an mtime check even on coarse clocks.
    later = time.time() + 5
    os.utime(path, (later, later))
    deadline = time.monotonic() + policy.RECHECK_INTERVAL + 2
    while time.monotonic() < deadline:
        if _decide(enforcer, member, 'os_compute_api:servers:create') is False:
            break
        time.sleep(0.05)
    assert _decide(enforcer, member, 'os_compute_api:servers:create') is False


def test_http_rules_are_never_remembered(tmp_path):
    answers = ['True', 'False']

    class Checker(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - the http.server protocol
            self.rfile.read(int(self.headers['Content-Length']))
            body = answers.pop(0).encode()
            self.send_response(200)
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(('127.0.0.1', 0), Checker)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        enforcer, _path = _conf(tmp_path, '"os_compute_api:servers:create": '
                                          '"http://127.0.0.1:%d/check"\n' % server.server_port)
        member = _ctx(['member'])
        # The remote check decides each time: allowed, then refused.
        assert _decide(enforcer, member, 'os_compute_api:servers:create') is True
        assert _decide(enforcer, member, 'os_compute_api:servers:create') is False
        assert answers == []
    finally:
        server.shutdown()

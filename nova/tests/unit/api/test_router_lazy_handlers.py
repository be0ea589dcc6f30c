"""The route table imports a handler module on its first request, not at start."""

import inspect
import subprocess
import sys

from nova.api import router


def _handlers():
    tables = list(router.ROUTES) + [('/servers/{server_id}/action', router.SERVER_ACTIONS)]
    for path, methods in tables:
        for verb, meth in methods.items():
            yield path, verb, meth.handler


def test_every_route_names_a_handler_function_that_exists():
    seen = 0
    for path, verb, handler in _handlers():
        if isinstance(handler, router.Handler):
            func = handler.resolve()
            assert inspect.isfunction(func), (path, verb, handler)
            assert handler.resolve() is func    # resolved once
            seen += 1
        else:
            assert handler is router.server_action, (path, verb)
    assert seen > 150


def test_a_handler_keeps_its_functions_attributes():
    with_schemas = [h for _p, _v, h in _handlers() if isinstance(h, router.Handler)
                    and hasattr(h.resolve(), '__schemas__')]
    assert len(with_schemas) > 40
    for handler in with_schemas:
        assert handler.__schemas__ is handler.resolve().__schemas__


def test_start_imports_no_handler_and_a_request_imports_its_own():
    code = '''if True:
        import sys, webob
        from nova import conf
        from nova.api import deploy
        c = conf.new_config()
        c.set_override('auth_strategy', 'noauth2', group='api')
        app = deploy.build_app(c, None)
        def handlers():
            return sorted(m.rsplit('.', 1)[1] for m in sys.modules
                          if m.startswith('nova.api.handlers.'))
        print(handlers())
        req = webob.Request.blank('/v2.1/os-aggregates', headers={'X-Auth-Token': 'demo:demo'})
        print(req.get_response(app).status_int, handlers())
        '''
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    # versions serves / and /v2.1/ from the core app itself.
    assert out[0] == "['versions']", out
    assert out[1] == "403 ['aggregates', 'versions']", out

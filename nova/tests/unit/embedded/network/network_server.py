"""Test helper: the embedded network endpoint on a real HTTP server behind noauth2."""

import requests

from nova import conf as nova_conf
from nova import wsgi_server
from nova.api import auth
from nova.embedded.network import app, networks, seed

# The same version documents the all-in-one serves without credentials.
PUBLIC_PATHS = ('', '/')


class NetworkServer:
    """The embedded network app served on 127.0.0.1 with the default network seeded."""

    def __init__(self, data_dir, seed_default=True, notifier=None, settings=None):
        self.data_dir = data_dir
        self.app = app.make_app(data_dir, settings or networks.NetworkSettings(), notifier)
        if seed_default:
            self.network, self.subnet = seed.ensure(self.app, seed.DefaultNetworkSpec())
        conf = nova_conf.new_config()
        conf.set_override('auth_strategy', 'noauth2', group='api')
        self.server, self.thread, self.url = wsgi_server.serve_in_thread(
            auth.protect(self.app, conf, PUBLIC_PATHS), poll_interval=0.05)
        self.url = self.url.rstrip('/')

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)
        self.app.close()


class NetworkApi:
    """Raw HTTP calls as one user of one project (noauth2: ``admin`` is an administrator)."""

    def __init__(self, url, project='p1', user=None):
        self.base = url + '/v2.0'
        self.root = url
        self.project = project
        self.headers = {'X-Auth-Token': '%s:%s' % (user or project, project)}

    def request(self, method, path, **kwargs):
        headers = dict(self.headers, **kwargs.pop('headers', {}))
        return requests.request(method, self.base + path, headers=headers, timeout=30,
                                **kwargs)

    def get(self, path, **kwargs):
        return self.request('GET', path, **kwargs)

    def post(self, path, body=None, **kwargs):
        return self.request('POST', path, json=body, **kwargs)

    def put(self, path, body=None, **kwargs):
        return self.request('PUT', path, json=body, **kwargs)

    def delete(self, path, **kwargs):
        return self.request('DELETE', path, **kwargs)

    def create(self, collection, resource, **body):
        resp = self.post('/' + collection, {resource: body})
        assert resp.status_code == 201, resp.text
        return resp.json()[resource]


def fault(resp, code, kind=None):
    """The NeutronError of an error response (status and type checked)."""
    assert resp.status_code == code, resp.text
    error = resp.json()['NeutronError']
    assert set(error) == {'type', 'message', 'detail'}
    if kind:
        assert error['type'] == kind, error
    return error['message']

"""NeutronClient over keystoneauth against a small HTTP server: tokens, URLs, errors, retries."""

import json
import threading
import time
from wsgiref import simple_server

import pytest

from nova import conf as nova_conf
from nova import context as nova_context
from nova import exception
from nova.network import client as neutron_client


class _Quiet(simple_server.WSGIRequestHandler):
    def log_message(self, *args):
        pass


class StubNeutron:
    """Answers each path with a canned (status, body); records what came in."""

    def __init__(self):
        self.routes = {}
        self.seen = []
        self.delay = 0
        self.server = simple_server.make_server('127.0.0.1', 0, self.app,
                                                handler_class=_Quiet)
        self.url = 'http://127.0.0.1:%d' % self.server.server_port
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def app(self, environ, start_response):
        path = environ['PATH_INFO']
        self.seen.append((environ['REQUEST_METHOD'], path, environ.get('QUERY_STRING'),
                          environ.get('HTTP_X_AUTH_TOKEN')))
        time.sleep(self.delay)
        status, body = self.routes.get(path, (404, {'NeutronError': {
            'type': 'HTTPNotFound', 'message': 'nothing at %s' % path, 'detail': ''}}))
        data = b'' if body is None else json.dumps(body).encode()
        start_response('%d X' % status, [('Content-Type', 'application/json'),
                                         ('Content-Length', str(len(data)))])
        return [data]

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stub():
    srv = StubNeutron()
    yield srv
    srv.stop()


def make_client(url, **overrides):
    conf = nova_conf.new_config()
    nova_conf.register_client_opts(conf, 'neutron')
    # The service's own credentials: a fixed token stands for a Keystone login.
    from keystoneauth1 import loading
    conf.register_opts(loading.get_auth_plugin_conf_options('admin_token'), group='neutron')
    values = dict(auth_type='admin_token', endpoint=url, token='service-token',
                  endpoint_override=url, http_retries=0)
    values.update(overrides)
    for name, value in values.items():
        conf.set_override(name, value, group='neutron')
    return neutron_client.NeutronClient(conf), conf


CTX = nova_context.RequestContext(user_id='u1', project_id='p1', auth_token='user-token')


def test_user_and_admin_tokens_and_the_v2_path(stub):
    stub.routes['/v2.0/networks'] = (200, {'networks': [{'id': 'n1'}]})
    client, _conf = make_client(stub.url)
    assert client.list(CTX, 'networks', id=['a', 'b'], shared=False) == [{'id': 'n1'}]
    client.list(CTX, 'networks', admin=True)
    assert stub.seen[0] == ('GET', '/v2.0/networks', 'id=a&id=b&shared=False', 'user-token')
    assert stub.seen[1] == ('GET', '/v2.0/networks', '', 'service-token')


def test_an_endpoint_with_the_version_is_kept(stub):
    stub.routes['/v2.0/ports'] = (200, {'ports': []})
    client, _conf = make_client(stub.url + '/v2.0/')
    assert client.list(CTX, 'ports') == []


def test_errors_become_nova_exceptions(stub):
    client, _conf = make_client(stub.url)
    stub.routes['/v2.0/ports/p9'] = (404, {'NeutronError': {
        'type': 'PortNotFound', 'message': 'Port p9 could not be found.', 'detail': ''}})
    with pytest.raises(exception.PortNotFound) as caught:
        client.show(CTX, 'ports', 'port', 'p9',
                    not_found=lambda: exception.PortNotFound(port_id='p9'))
    assert caught.value.format_message() == 'Port id p9 could not be found.'
    with pytest.raises(exception.NotFound):
        client.show(CTX, 'ports', 'port', 'p9')
    stub.routes['/v2.0/ports'] = (409, {'NeutronError': {
        'type': 'IpAddressAlreadyAllocated', 'message': 'IP taken', 'detail': ''}})
    with pytest.raises(exception.FixedIpAlreadyInUse):
        client.call(CTX, 'POST', '/ports', json={'port': {}}, errors={
            'IpAddressAlreadyAllocated': lambda m: exception.FixedIpAlreadyInUse(m)})
    with pytest.raises(exception.Conflict) as caught:
        client.call(CTX, 'POST', '/ports', json={'port': {}})
    assert 'IP taken' in caught.value.format_message()
    stub.routes['/v2.0/subnets'] = (400, {'NeutronError': {
        'type': 'HTTPBadRequest', 'message': 'bad filter', 'detail': ''}})
    with pytest.raises(exception.Invalid) as caught:
        client.list(CTX, 'subnets')
    assert caught.value.code == 400


def test_unauthorized_user_and_misconfigured_service(stub):
    client, _conf = make_client(stub.url)
    stub.routes['/v2.0/networks'] = (401, {'error': 'no'})
    with pytest.raises(exception.Unauthorized):
        client.list(CTX, 'networks')
    with pytest.raises(exception.NeutronAdminCredentialConfigurationInvalid):
        client.list(CTX, 'networks', admin=True)


def test_server_errors_and_no_answer_are_503(stub):
    client, _conf = make_client(stub.url)
    stub.routes['/v2.0/networks'] = (500, {'NeutronError': {'message': 'boom'}})
    with pytest.raises(exception.NetworkServiceError) as caught:
        client.list(CTX, 'networks')
    assert caught.value.code == 503 and 'boom' in caught.value.format_message()
    stub.stop()
    with pytest.raises(exception.NetworkServiceError) as caught:
        client.list(CTX, 'networks')
    assert 'GET /networks' in caught.value.format_message()


def test_timeout_is_honoured(stub):
    stub.routes['/v2.0/networks'] = (200, {'networks': []})
    stub.delay = 2
    client, _conf = make_client(stub.url, timeout=0.5)
    started = time.monotonic()
    with pytest.raises(exception.NetworkServiceError):
        client.list(CTX, 'networks')
    assert time.monotonic() - started < 1.9


def test_connection_retries_follow_http_retries():
    # Nothing listens on port 9 of loopback: each attempt is refused at once.
    client, _conf = make_client('http://127.0.0.1:9', http_retries=2)
    started = time.monotonic()
    with pytest.raises(exception.NetworkServiceError):
        client.list(CTX, 'networks')
    # keystoneauth pauses 0.5 s, then 1 s, between its connect retries.
    assert time.monotonic() - started >= 1.4


def test_delete_of_a_port_already_gone_is_fine(stub):
    client, _conf = make_client(stub.url)
    client.delete_port(CTX, 'gone')
    assert stub.seen[-1][:2] == ('DELETE', '/v2.0/ports/gone')


def test_extension_list_is_cached_for_the_interval(stub):
    stub.routes['/v2.0/extensions'] = (200, {'extensions': [{'alias': 'dns-integration'}]})
    client, conf = make_client(stub.url)
    now = [1000.0]
    ext = neutron_client.NeutronExtensions(conf, client, clock=lambda: now[0])
    assert ext.has(CTX, ext.DNS_INTEGRATION) and not ext.has(CTX, ext.PORT_BINDING_EXTENDED)
    now[0] += 599
    ext.has(CTX, ext.DNS_INTEGRATION)
    assert [s[1] for s in stub.seen].count('/v2.0/extensions') == 1
    now[0] += 1
    ext.has(CTX, ext.DNS_INTEGRATION)
    assert [s[1] for s in stub.seen].count('/v2.0/extensions') == 2
    # Read with the service's credentials, whoever asks.
    assert stub.seen[-1][3] == 'service-token'


def _api(url):
    from nova.network import neutron
    client, conf = make_client(url)
    return neutron.NetworkAPI(conf, neutron=client)


@pytest.mark.parametrize('extension,dry_run', [(False, None), (True, 409)])
def test_get_me_a_network_refused_before_the_202(stub, extension, dry_run):
    # The project has no network, and Neutron cannot make one.
    stub.routes['/v2.0/networks'] = (200, {'networks': []})
    stub.routes['/v2.0/extensions'] = (200, {'extensions': [
        {'alias': 'auto-allocated-topology'}] if extension else []})
    stub.routes['/v2.0/auto-allocated-topology/p1'] = (dry_run, {'NeutronError': {
        'type': 'AutoAllocationFailure', 'message': 'No default router:external network.',
        'detail': ''}})
    api = _api(stub.url)
    with pytest.raises(exception.UnableToAutoAllocateNetwork) as caught:
        api.validation.validate_networks(CTX, 'auto', 1)
    assert caught.value.code == 400
    assert caught.value.format_message() == (
        'Unable to automatically allocate a network for project p1')
    assert (('GET', '/v2.0/auto-allocated-topology/p1', 'fields=dry-run', 'user-token')
            in stub.seen) == extension


def test_no_network_at_all_means_no_nic_and_no_quota_check(stub):
    stub.routes['/v2.0/networks'] = (200, {'networks': []})
    assert _api(stub.url).validation.validate_networks(CTX, None, 4) == 4
    assert not [s for s in stub.seen if s[1].startswith('/v2.0/quotas')]


def test_over_the_port_quota_is_a_403(stub):
    # A Neutron that let usage pass the limit (its limit lowered by force).
    net = '0f8e3a52-2d2b-4a51-9c0e-7d4f6b1a2c3d'
    stub.routes['/v2.0/networks'] = (200, {'networks': [{'id': net, 'subnets': ['s1']}]})
    stub.routes['/v2.0/quotas/p1'] = (200, {'quota': {'port': 2}})
    stub.routes['/v2.0/ports'] = (200, {'ports': [{'id': 'a'}, {'id': 'b'}, {'id': 'c'}]})
    with pytest.raises(exception.PortLimitExceeded) as caught:
        _api(stub.url).validation.validate_networks(CTX, [{'uuid': net}], 1)
    assert caught.value.code == 403
    assert caught.value.format_message() == (
        'The number of defined ports: 3 is over the limit: 2')
    stub.routes['/v2.0/quotas/p1'] = (200, {'quota': {'port': -1}})
    assert _api(stub.url).validation.validate_networks(CTX, [{'uuid': net}], 7) == 7

"""nova.wsgi.identity's catalog: from the configured public endpoints, unset ones left out."""

import json

import pytest
import webob

from nova import conf as nova_conf
from nova.cmd import common
from nova.wsgi import app


def _token(conf, host='http://id.example.org:5000'):
    stub = app._identity(conf)
    body = {'auth': {'identity': {'methods': ['password'], 'password': {
        'user': {'name': 'demo', 'domain': {'name': 'Default'}, 'password': 'x'}}},
        'scope': {'project': {'name': 'demo', 'domain': {'name': 'Default'}}}}}
    req = webob.Request.blank(host + '/v3/auth/tokens', method='POST',
                              body=json.dumps(body).encode())
    resp = req.get_response(stub)
    assert resp.status_int == 201, resp.body
    return {entry['type']: entry['endpoints'][0]['url']
            for entry in json.loads(resp.body)['token']['catalog']}


def _conf(**groups):
    conf = nova_conf.new_config()
    conf.set_override('auth_strategy', 'noauth2', group='api')
    for group, (key, value) in groups.items():
        if group in nova_conf.CLIENT_GROUPS:
            nova_conf.register_client_opts(conf, group)
        conf.set_override(key, value, group=group)
    return conf


def test_unset_endpoints_are_left_out_and_the_stand_in_names_itself():
    catalog = _token(_conf(api=('compute_link_prefix', 'https://cloud.example.org/compute/')))
    assert catalog == {'compute': 'https://cloud.example.org/compute/v2.1',
                       'identity': 'http://id.example.org:5000'}


def test_percent_in_a_url_is_not_a_placeholder():
    catalog = _token(_conf(cinder=('endpoint_override', 'http://vol.example.org/a%20b')))
    assert catalog['block-storage'] == 'http://vol.example.org/a%20b/v3/demo'


def test_keystone_deployments_are_refused():
    conf = _conf()
    conf.set_override('auth_strategy', 'keystone', group='api')
    with pytest.raises(common.StartupError, match='noauth2 deployments only'):
        app._identity(conf)

"""The all-in-one's identity settings: clouds.yaml per auth strategy, clients' credentials."""

import yaml

from nova import conf as nova_conf
from nova import service_client
from nova.cmd import aio

URLS = ('http://127.0.0.1:8774/v2.1', 'http://127.0.0.1:9292', 'http://127.0.0.1:8776')


def _conf(tmp_path, text=''):
    path = tmp_path / 'nova.conf'
    path.write_text('[DEFAULT]\nstate_path = %s\n%s' % (tmp_path, text))
    conf = nova_conf.new_config()
    aio.set_aio_defaults(conf)
    conf(['--config-file', str(path)])
    aio.register_keystone_opts(conf)
    return conf


def _cloud(conf):
    with open(aio.write_clouds_yaml(conf, *URLS)) as handle:
        return yaml.safe_load(handle)['clouds']['nova-aio']


def test_noauth2_clouds_yaml_unchanged(tmp_path):
    cloud = _cloud(_conf(tmp_path))
    assert cloud['auth_type'] == 'none'
    assert cloud['block_storage_endpoint_override'] == URLS[2] + '/v3/notused'


def test_keystone_clouds_yaml_has_password_auth_and_no_password(tmp_path):
    conf = _conf(tmp_path, '[api]\nauth_strategy = keystone\n'
                           '[keystone_authtoken]\nwww_authenticate_uri = http://ks:5000/v3\n'
                           'password = service-secret\n'
                           '[aio]\ncloud_username = demo\ncloud_project_name = demo\n')
    cloud = _cloud(conf)
    assert cloud['auth_type'] == 'password'
    assert cloud['auth'] == {'auth_url': 'http://ks:5000/v3', 'username': 'demo',
                             'project_name': 'demo', 'user_domain_name': 'Default',
                             'project_domain_name': 'Default'}
    assert cloud['compute_endpoint_override'] == URLS[0]
    assert cloud['block_storage_endpoint_override'] == URLS[2] + '/v3'
    text = (tmp_path / 'clouds.yaml').read_text()
    assert 'secret' not in text and 'password:' not in text


def test_keystone_clouds_yaml_leaves_unset_names_to_the_environment(tmp_path):
    conf = _conf(tmp_path, '[api]\nauth_strategy = keystone\n'
                           '[aio]\ncatalog_endpoints = true\n'
                           'cloud_auth_url = http://other:5000/v3\n')
    cloud = _cloud(conf)
    assert set(cloud['auth']) == {'auth_url', 'user_domain_name', 'project_domain_name'}
    assert cloud['auth']['auth_url'] == 'http://other:5000/v3'
    assert not any(key.endswith('_endpoint_override') for key in cloud)


def test_clients_use_the_keystone_service_user_in_keystone_mode(tmp_path):
    conf = _conf(tmp_path, '[api]\nauth_strategy = keystone\n')
    aio._point_client(conf, 'glance', URLS[1])
    assert conf.glance.auth_section == 'keystone_authtoken'
    assert conf.glance.endpoint_override == URLS[1]
    conf = _conf(tmp_path, '[api]\nauth_strategy = keystone\n[aio]\ncatalog_endpoints = true\n'
                           '[cinder]\nauth_type = password\n')
    aio._point_client(conf, 'cinder', URLS[2])
    assert conf.cinder.auth_section is None and conf.cinder.endpoint_override is None


def test_clients_call_embedded_endpoints_directly_in_noauth2(tmp_path):
    """Nothing configured for the client: http.client to the embedded
    endpoint, its keystoneauth options not even registered."""
    conf = _conf(tmp_path)
    aio._point_client(conf, 'cinder', URLS[2])
    assert not nova_conf.client_opts_registered(conf, 'cinder')
    assert service_client.embedded_url(conf, 'cinder') == URLS[2]
    assert service_client.embedded_url(nova_conf.new_config(), 'cinder') is None


def test_clients_are_anonymous_to_embedded_endpoints_when_configured(tmp_path, monkeypatch):
    """A [cinder] section (or an OS_CINDER__* variable) keeps keystoneauth,
    pointed at the embedded endpoint without credentials, as before."""
    conf = _conf(tmp_path, '[cinder]\nhttp_retries = 1\n')
    aio._point_client(conf, 'cinder', URLS[2])
    assert conf.cinder.auth_type == 'none' and conf.cinder.endpoint_override == URLS[2]
    assert service_client.embedded_url(conf, 'cinder') is None
    monkeypatch.setenv('OS_CINDER__TIMEOUT', '30')
    conf = _conf(tmp_path)
    aio._point_client(conf, 'cinder', URLS[2])
    assert conf.cinder.timeout == 30 and conf.cinder.endpoint_override == URLS[2]


def test_clients_with_their_own_auth_section(tmp_path):
    """[glance] auth_section names another section: keystoneauth registers
    auth_type there, so the client is left to that section, in both modes."""
    conf = _conf(tmp_path, '[api]\nauth_strategy = keystone\n'
                           '[glance]\nauth_section = image_user\n'
                           '[image_user]\nauth_type = password\n')
    aio._point_client(conf, 'glance', URLS[1])
    assert conf.glance.auth_section == 'image_user'
    assert conf.glance.endpoint_override == URLS[1]
    assert conf.image_user.auth_type == 'password'
    conf = _conf(tmp_path, '[cinder]\nauth_section = volume_user\n'
                           '[volume_user]\nauth_type = password\n')
    aio._point_client(conf, 'cinder', URLS[2])
    assert conf.cinder.auth_section == 'volume_user'
    assert conf.cinder.endpoint_override == URLS[2]

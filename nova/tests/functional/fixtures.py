"""Test fixtures that run the real all-in-one in-process on free ports."""

import json
import os
import urllib.request
import uuid as uuidlib

from nova import conf as nova_conf
from nova import objects, rpc
from nova.cmd import aio


def make_conf(state_path, connection_uri='test:///default', extra=None):
    """A fresh ConfigOpts with the all-in-one defaults and test-friendly ports."""
    conf = nova_conf.new_config()
    aio.set_aio_defaults(conf)
    conf.set_override('state_path', str(state_path))
    conf.set_override('compute_port', 0, group='aio')
    conf.set_override('image_port', 0, group='aio')
    conf.set_override('volume_port', 0, group='aio')
    conf.set_override('network_port', 0, group='aio')
    # No data plane unless a test asks for one, in a namespace it made: the
    # plane's bridge carries addresses, which never go on the root namespace.
    conf.set_override('network_dataplane', False, group='aio')
    conf.set_override('metadata_listen_port', 0)
    conf.set_override('novncproxy_port', 0, group='vnc')
    conf.set_override('serialproxy_port', 0, group='serial_console')
    conf.set_override('html5proxy_port', 0, group='spice')
    conf.set_override('connection_uri', connection_uri, group='libvirt')
    conf.set_override('host', 'testhost')
    # Test runs share one libvirtd: keep their domain names apart.
    conf.set_override('instance_name_template',
                      'test-%s-%%08x' % uuidlib.uuid4().hex[:8])
    conf.set_override('sync_power_state_interval', -1)
    conf.set_override('shutdown_timeout', 0)
    if any(group == 'keystone_authtoken' for group, _key in extra or {}):
        # keystonemiddleware registers these only when it loads them.
        from keystoneauth1 import loading as ks_loading
        aio.register_keystone_opts(conf)
        plugin = (extra or {}).get(('keystone_authtoken', 'auth_type'), 'password')
        conf.register_opts(ks_loading.get_auth_plugin_conf_options(plugin),
                           group='keystone_authtoken')
    # Suites that are not about quotas create more servers than the default
    # quota allows; quota tests pass the defaults back in ``extra``.
    for option in ('instances', 'cores', 'ram'):
        conf.set_override(option, -1, group='quota')
    for (group, key), value in (extra or {}).items():
        if group in nova_conf.CLIENT_GROUPS and key not in conf[group]:
            # Registered when used (they load keystoneauth1); setting one
            # means the client uses keystoneauth, as a config file would.
            nova_conf.register_client_opts(conf, group)
        conf.set_override(key, value, group=None if group == 'DEFAULT' else group)
    return conf


class RunningAio:
    """A started AllInOne plus a tiny JSON HTTP client for tests."""

    def __init__(self, state_path, **kwargs):
        objects.register_all()
        self.conf = make_conf(state_path, **kwargs)
        self.aio = aio.AllInOne(self.conf).start()
        self.compute_url = self.aio.urls['compute']
        self.image_url = self.aio.urls['image']
        self.network_url = self.aio.urls.get('network')
        self.db = self.aio.db

    def stop(self):
        self._destroy_guests()
        self.aio.stop()
        rpc.cleanup(self.conf)

    def _destroy_guests(self):
        """Leave no guest behind on a shared libvirtd, even after a failed test."""
        from nova import context as nova_context
        from nova.objects import instance as instance_obj
        drivers = {svc.host: svc.manager.driver for svc in self.aio.services[1:]}
        ctx = nova_context.get_admin_context()
        for row in self.db.instance_get_all({}):
            driver = drivers.get(row['host'], self.aio.services[1].manager.driver)
            try:
                driver.destroy(ctx, instance_obj.Instance.from_db(row), destroy_disks=True)
            except Exception:  # noqa: BLE001 - best effort clean-up.
                pass

    def request(self, method, path, body=None, version=None, token='demo:demo',
                headers=None, raw=None, url=None):
        """(status, headers, decoded JSON or None)."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None
                                            else None)
        req = urllib.request.Request((url or self.compute_url) + path, data=data,
                                     method=method)
        req.add_header('X-Auth-Token', token)
        if data is not None:
            req.add_header('Content-Type', 'application/json')
        if version:
            req.add_header('OpenStack-API-Version', 'compute %s' % version)
        for key, value in (headers or {}).items():
            req.add_header(key, value)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                status, resp_headers, payload = resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as err:
            status, resp_headers, payload = err.code, err.headers, err.read()
        return status, resp_headers, _decode(payload)

    def upload_image(self, path, name='img', disk_format='raw', container_format='bare',
                     token='demo:demo', **props):
        """An active image owned by the project of ``token``."""
        meta = dict(name=name, disk_format=disk_format, container_format=container_format,
                    **props)
        status, _h, image = self.request('POST', '/v2/images', meta, url=self.image_url,
                                         token=token)
        assert status == 201, image
        with open(path, 'rb') as handle:
            data = handle.read()
        status, _h, _b = self.request(
            'PUT', '/v2/images/%s/file' % image['id'], raw=data, url=self.image_url,
            token=token, headers={'Content-Type': 'application/octet-stream'})
        assert status == 204, status
        return image['id']

    def upload_kernel_and_ramdisk(self, kernel, initrd):
        """(kernel_id, ramdisk_id): the AKI and ARI images a kernel+initrd guest's image names."""
        return (self.upload_image(kernel, name='vmlinuz', disk_format='aki',
                                  container_format='aki'),
                self.upload_image(initrd, name='initrd', disk_format='ari',
                                  container_format='ari'))

    def wait_for_status(self, server_id, statuses, timeout=60, version=None,
                        token='demo:demo'):
        import time
        deadline = time.monotonic() + timeout
        while True:
            status, _h, body = self.request('GET', '/servers/%s' % server_id, version=version,
                                            token=token)
            if status == 404 and 'DELETED' in statuses:
                return None
            server = body['server']
            if server['status'] in statuses:
                return server
            if server['status'] == 'ERROR':
                raise AssertionError('server %s went to ERROR: %s'
                                     % (server_id, server.get('fault')))
            if time.monotonic() > deadline:
                _dump_threads(self.conf.state_path)
                raise AssertionError('server %s stuck in %s (task %s); thread dump in %s'
                                     % (server_id, server['status'],
                                        server.get('OS-EXT-STS:task_state'),
                                        self.conf.state_path))
            time.sleep(0.05)


def _dump_threads(directory):
    """Write every thread's stack next to the state, to explain a hang."""
    import faulthandler
    with open(os.path.join(directory, 'threads.txt'), 'w') as out:
        faulthandler.dump_traceback(file=out, all_threads=True)


def _decode(payload):
    """JSON when the body is JSON; otherwise the text (e.g. a plain error page)."""
    if not payload:
        return None
    try:
        return json.loads(payload)
    except ValueError:
        return payload.decode('utf-8', 'replace')


def tiny_disk(path, size=1024 * 1024):
    with open(path, 'wb') as handle:
        handle.truncate(size)
    return str(path)


def env_flag(name):
    return os.environ.get(name)

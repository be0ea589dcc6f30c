"""A real nova-aio: keystoneauth1 stays unloaded in the default mode, loads with Keystone;
an imported key pair loads no cryptography."""

import json
import socket
import subprocess
import sys

import pytest

# Runs nova-aio's main() as the console script does; a thread waits until the
# compute API answers, optionally makes calls through the image and volume
# clients and imports a key pair, writes which modules are loaded, then stops
# the process (SIGTERM).
_DRIVER = r'''
import json, os, signal, sys, threading, time, urllib.error, urllib.request

out, conf, compute, image, exercise, public_key = sys.argv[1:7]


def call(method, url, body=None, raw=None, ctype='application/json'):
    data = raw if raw is not None else (json.dumps(body).encode() if body else None)
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header('X-Auth-Token', 'demo:demo')
    req.add_header('Content-Type', ctype)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            payload = resp.read()
            return resp.status, json.loads(payload) if payload else None
    except urllib.error.HTTPError as err:
        return err.code, None


def watch():
    result = {}
    try:
        while True:
            try:
                urllib.request.urlopen(compute, timeout=1).read()
                break
            except urllib.error.HTTPError:
                break
            except OSError:
                time.sleep(0.1)
        if exercise == '1':
            code, img = call('POST', image + '/v2/images', {
                'name': 'probe', 'disk_format': 'raw', 'container_format': 'bare'})
            call('PUT', image + '/v2/images/%s/file' % img['id'], raw=b'\0' * 4096,
                 ctype='application/octet-stream')
            # Through the compute API: the image client, then the volume client.
            result['image_show'] = call('GET', compute + '/v2.1/images/' + img['id'])[0]
            result['volume_list'] = call('GET', compute + '/v2.1/os-volumes')[0]
            code, body = call('POST', compute + '/v2.1/os-keypairs', {'keypair': {
                'name': 'probe', 'public_key': public_key}})
            result['keypair'] = [code, body and body['keypair']['fingerprint']]
        result['modules'] = sorted(name for name in sys.modules
                                   if name.split('.')[0] in ('keystoneauth1', 'requests',
                                                             'os_service_types',
                                                             'cryptography', 'bcrypt'))
    finally:
        with open(out, 'w') as handle:
            json.dump(result, handle)
        os.kill(os.getpid(), signal.SIGTERM)


threading.Thread(target=watch, daemon=True).start()
from nova.cmd import aio
aio.main(['--config-file', conf])
'''


# An ECDSA key as ssh-keygen writes it (paramiko's, the benchmarks' and
# tempest's kind): nova.crypto checks it without cryptography.
_PUBLIC_KEY = (
    'ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBJz+eGlwfa5H'
    'RpbpbIBFz7Kzzd+LvmksjDjNXIczuQ/blDWdBn8sp+lT+v3UNbRpd91mNbb1WaRyYsiuGUzYFAE= probe')
_PUBLIC_KEY_FINGERPRINT = '86:17:f3:d1:dc:e7:2d:3b:80:68:dc:3a:47:f8:70:b1'


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _run_aio(tmp_path, extra='', exercise=True):
    ports = [_free_port() for _ in range(3)]
    conf = tmp_path / 'nova.conf'
    conf.write_text(
        '[DEFAULT]\nstate_path = %s\nmetadata_listen_port = 0\n[libvirt]\nconnection_uri = test:///default\n'
        '[vnc]\nnovncproxy_port = 0\n[serial_console]\nserialproxy_port = 0\n'
        '[aio]\ncompute_port = %d\nimage_port = %d\nvolume_port = %d\n%s'
        % (tmp_path, ports[0], ports[1], ports[2], extra))
    out = tmp_path / 'result.json'
    proc = subprocess.run(
        [sys.executable, '-c', _DRIVER, str(out), str(conf),
         'http://127.0.0.1:%d' % ports[0], 'http://127.0.0.1:%d' % ports[1],
         '1' if exercise else '0', _PUBLIC_KEY],
        capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(out.read_text())


def test_default_aio_never_loads_keystoneauth(tmp_path):
    """noauth2 and the embedded endpoints: the image and volume clients call
    them with http.client. requests itself is still loaded, by oslo.policy's
    http: check (an entry point it loads with its first rule)."""
    result = _run_aio(tmp_path)
    assert result['image_show'] == 200 and result['volume_list'] == 200
    loaded = set(result['modules'])
    assert 'keystoneauth1' not in loaded and 'os_service_types' not in loaded, loaded


def test_imported_key_pair_loads_no_cryptography(tmp_path):
    """cryptography (with OpenSSL's bindings and bcrypt, about 9 MB resident)
    is loaded to generate a key pair, not to import an RSA, ECDSA or Ed25519
    public key (nova.crypto checks those itself)."""
    result = _run_aio(tmp_path)
    assert result['keypair'] == [200, _PUBLIC_KEY_FINGERPRINT], result
    loaded = {name.split('.')[0] for name in result['modules']}
    assert not loaded & {'cryptography', 'bcrypt'}, loaded


def test_configured_client_group_loads_keystoneauth(tmp_path):
    """A [glance] section: that client keeps keystoneauth, as before."""
    result = _run_aio(tmp_path, '[glance]\nnum_retries = 2\n')
    assert result['image_show'] == 200
    assert 'keystoneauth1' in result['modules']


@pytest.mark.parametrize('exercise', [False])
def test_keystone_mode_loads_keystoneauth(tmp_path, exercise):
    """With Keystone the clients use keystoneauth sessions (no Keystone needs
    to answer: the service starts without calling it)."""
    result = _run_aio(tmp_path, '[api]\nauth_strategy = keystone\n'
                                '[keystone_authtoken]\nwww_authenticate_uri = '
                                'http://127.0.0.1:9/identity/v3\nauth_type = password\n'
                                'auth_url = http://127.0.0.1:9/identity/v3\n'
                                'username = nova\npassword = x\nproject_name = service\n'
                                'user_domain_name = Default\nproject_domain_name = Default\n',
                      exercise=exercise)
    assert 'keystoneauth1' in result['modules']

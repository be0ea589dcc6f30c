"""nova-aio with its network data plane in a namespace the test creates: start, events, stop."""

import logging
import os
import subprocess
import sys

import pytest

from nova.embedded.network import binding, firewall, netns
from nova.tests.functional import fixtures
from nova.tests.functional import netns_guest as ng

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason='needs root for namespaces')
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


@pytest.fixture
def spaces():
    found = ng.Namespaces()
    yield found
    found.cleanup()


def test_aio_runs_its_plane_in_the_namespace(tmp_path, spaces, caplog):
    plane_ns, guest_ns = spaces.add('plane'), spaces.add('guest')
    running = fixtures.RunningAio(tmp_path / 'state', extra={
        ('aio', 'network_dataplane'): True, ('aio', 'network_namespace'): plane_ns})
    ns = netns.NetworkNamespace(plane_ns)
    try:
        assert running.aio.plane is not None
        addresses = {a['local'] for a in ns.ip_json('-4', 'addr', 'show', 'dev',
                                                    'br-aio')[0]['addr_info']}
        assert addresses == {'10.78.0.1', '169.254.169.254'}
        # Nothing of it in the namespace the test (and nova-aio) run in.
        assert 'br-aio' not in [link['ifname'] for link in
                                netns.NetworkNamespace(None).ip_json('link', 'show')]
        image = running.upload_image(fixtures.tiny_disk(tmp_path / 'disk.img'))
        status, _h, body = running.request('POST', '/servers', {'server': {
            'name': 'vm', 'imageRef': image, 'flavorRef': '1', 'networks': 'none'}},
            version='2.37')
        assert status == 202, body
        server = running.wait_for_status(body['server']['id'], ('ACTIVE',))
        status, _h, body = running.request('POST', '/v2.0/ports', {'port': {
            'network_id': running.aio.network.store.list('networks')[0]['id'],
            'device_id': server['id'], 'device_owner': 'compute:nova',
            'binding:host_id': 'testhost'}}, url=running.network_url, token='admin:admin')
        assert status == 201, body
        port = body['port']
        assert port['binding:vif_type'] == 'tap' and port['status'] == 'DOWN'
        # A network of its own has no bridge: its ports fail to bind.
        status, _h, body = running.request('POST', '/v2.0/networks', {'network': {
            'name': 'mine'}}, url=running.network_url, token='admin:admin')
        mine = body['network']['id']
        running.request('POST', '/v2.0/subnets', {'subnet': {
            'network_id': mine, 'ip_version': 4, 'cidr': '10.7.0.0/24'}},
            url=running.network_url, token='admin:admin')
        status, _h, body = running.request('POST', '/v2.0/ports', {'port': {
            'network_id': mine, 'binding:host_id': 'testhost'}}, url=running.network_url,
            token='admin:admin')
        assert body['port']['binding:vif_type'] == 'binding_failed'
        caplog.set_level(logging.INFO, logger='nova.compute')
        guest = ng.Guest(plane_ns, guest_ns, binding.devname(port['id']),
                         port['mac_address'], str(tmp_path)).plug()
        running.aio.plane.sync()
        lease = guest.dhcp()
        assert lease['ip'] == port['fixed_ips'][0]['ip_address']
        # network-vif-plugged went through the compute API to the compute host.
        wanted = 'Received event network-vif-plugged:%s for instance %s' % (port['id'],
                                                                            server['id'])
        for _ in range(200):
            if wanted in caplog.text:
                break
            running.aio.plane.sync(1)
        assert wanted in caplog.text
        status, _h, body = running.request('GET', '/v2.0/ports/' + port['id'],
                                           url=running.network_url, token='admin:admin')
        assert body['port']['status'] == 'ACTIVE'
    finally:
        running.stop()
    assert 'br-aio' not in [link['ifname'] for link in ns.ip_json('link', 'show')]
    assert not firewall.present(ns, 'br-aio')
    assert running.aio.plane is None


def _nova_aio(tmp_path, extra):
    conf = tmp_path / 'nova.conf'
    conf.write_text('[DEFAULT]\nstate_path = %s\n[aio]\ncompute_port = 0\nimage_port = 0\n'
                    'volume_port = 0\nnetwork_port = 0\n%s[vnc]\nnovncproxy_port = 0\n'
                    '[libvirt]\nconnection_uri = test:///default\n'
                    % (tmp_path / 'state', extra))
    # The test suite turns the plane off through the environment: not here.
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_AIO__')}
    env['PYTHONPATH'] = ROOT
    code = 'import sys; from nova.cmd import aio; sys.exit(aio.main(sys.argv[1:]))'
    return subprocess.run([sys.executable, '-c', code, '--config-file', str(conf)],
                          capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)


def test_nova_aio_says_in_one_line_what_the_plane_lacks(tmp_path):
    proc = _nova_aio(tmp_path, 'network_namespace = nova-t-missing\n')
    assert proc.returncode == 1, proc.stderr
    assert 'Traceback' not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith('nova-')]
    assert lines == ['nova-aio: error: [aio] network_namespace nova-t-missing does not '
                     'exist (create it with "ip netns add nova-t-missing")']


def test_nova_aio_cidr_overlap_stops_the_start(tmp_path, spaces):
    plane_ns = spaces.add('plane')
    ng.sh('ip', '-n', plane_ns, 'link', 'add', 'up0', 'type', 'veth', 'peer', 'name', 'up1')
    ng.sh('ip', '-n', plane_ns, 'addr', 'add', '10.78.0.200/16', 'dev', 'up0')
    proc = _nova_aio(tmp_path, 'network_namespace = %s\n' % plane_ns)
    assert proc.returncode == 1, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith('nova-')]
    assert lines == ['nova-aio: error: [aio] network_cidr 10.78.0.0/24 overlaps the address '
                     '10.78.0.200/16 of up0 in network namespace %s; choose a free range'
                     % plane_ns]
    links = [link['ifname'] for link in netns.NetworkNamespace(plane_ns).ip_json(
        'link', 'show')]
    assert 'br-aio' not in links

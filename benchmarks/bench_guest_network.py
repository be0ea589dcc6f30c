"""The all-in-one's own network: POST /servers to an SSH-able guest vs networkless, and RSS.

Per round: the SSH test guest networkless ("networks": "none") to its console's ready
line, then on the default network to a first SSH command; seconds after the POST for
each phase and the guest's DHCP. Then one networked boot by a nova-aio process of its
own, for its peak RSS. Data plane, libvirtd and guests live in a namespace made here
(root needed), apart from those of nova/tests/functional/test_aio_guest_network.py.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

from benchmarks import bench_workload
from nova.tests.fixtures import sshguest
from nova.tests.functional import fixtures
from nova.tests.functional import netns_guest as ng

LIBVIRT_ROOT = '/var/lib/nova-bench-aio-net-libvirt'
HOST_UUID = '6c1bd3a2-5f0e-4d36-9a8e-0e4f6a2b9c71'
DISPLAY_PORTS, WEBSOCKET_PORTS = '7400:7449', '7450:7499'
RSS_TARGET_MB = 100
POLL = 0.1
# The guest prints this when udhcpc applied its lease (sshguest.UDHCPC).
BOUND = 'NOVA-SSH-GUEST: eth0 bound '
FIRST_LINE = 'NOVA-SSH-GUEST: booting kernel'
ADDRESSES = 'NOVA-SSH-GUEST: addresses'


class _Remote:
    """A nova-aio process on given ports, driven with RunningAio's own client methods."""

    request = fixtures.RunningAio.request
    upload_image = fixtures.RunningAio.upload_image
    wait_for_status = fixtures.RunningAio.wait_for_status

    def __init__(self, ports, state_path):
        self.compute_url = 'http://127.0.0.1:%d/v2.1' % ports['compute']
        self.image_url = 'http://127.0.0.1:%d' % ports['image']
        self.network_url = 'http://127.0.0.1:%d' % ports['network']
        self.conf = argparse.Namespace(state_path=state_path)


def _prepare(cloud):
    """(image id, keypair name, private key); the default group lets TCP 22 in."""
    import paramiko
    image = cloud.upload_image(sshguest.cached_disk_image(), name='ssh-guest')
    key = paramiko.ECDSAKey.generate()
    name = 'bench-%s' % uuid.uuid4().hex[:8]
    status, _h, body = cloud.request('POST', '/os-keypairs', {'keypair': {
        'name': name, 'public_key': '%s %s bench' % (key.get_name(), key.get_base64())}},
        version='2.37')
    assert status in (200, 201), body
    _s, _h, groups = cloud.request('GET', '/v2.0/security-groups?name=default&project_id=demo',
                                   url=cloud.network_url)
    status, _h, body = cloud.request('POST', '/v2.0/security-group-rules', {
        'security_group_rule': {'security_group_id': groups['security_groups'][0]['id'],
                                'direction': 'ingress', 'protocol': 'tcp',
                                'port_range_min': 22, 'port_range_max': 22}},
        url=cloud.network_url)
    assert status == 201, body
    return image, name, key


def _create(cloud, image, key_name, networkless):
    server = {'name': 'bench', 'imageRef': image, 'flavorRef': '1', 'key_name': key_name}
    if networkless:
        server['networks'] = 'none'
    # Without "networks" (below 2.37) the server gets a port on the default network.
    status, _h, body = cloud.request('POST', '/servers', {'server': server},
                                     version='2.37' if networkless else '2.36')
    assert status == 202, body
    return body['server']['id']


def _until(t0, what, predicate, timeout=180):
    """Seconds from ``t0`` until ``predicate()`` is truthy (polled every POLL s), and it."""
    value = ng.wait_for(what, predicate, timeout, interval=POLL)
    return time.perf_counter() - t0, value


def _on_console(cloud, sid, text):
    return lambda: text in ng.console_output(cloud, sid)


def _boot(cloud, image, key_name, netns=None, key=None):
    """(server id, seconds from the POST to each milestone); networkless without netns."""
    t0 = time.perf_counter()
    sid = _create(cloud, image, key_name, networkless=netns is None)
    cloud.wait_for_status(sid, ('ACTIVE',), timeout=180)
    out = {'active_s': time.perf_counter() - t0}
    out['first_line_s'] = _until(t0, 'the first console line',
                                 _on_console(cloud, sid, FIRST_LINE))[0]
    if netns is None:
        # Printed once the guest stops waiting for an address (20 s without a NIC).
        out['addresses_line_s'] = _until(t0, 'the addresses line',
                                         _on_console(cloud, sid, ADDRESSES))[0]
        out['ready_s'] = _until(t0, 'the ready line',
                                _on_console(cloud, sid, sshguest.READY_MARKER))[0]
        return sid, out
    _s, _h, body = cloud.request('GET', '/v2.0/ports?device_id=' + sid, url=cloud.network_url,
                                 token='admin:admin')
    address = body['ports'][0]['fixed_ips'][0]['ip_address']
    out['dhcp_bound_s'] = _until(t0, 'a DHCP lease',
                                 _on_console(cloud, sid, BOUND + address + '/'))[0]
    out['ssh_s'], client = _until(t0, 'SSH', lambda: _ssh_true(netns, address, key))
    client.close()
    return sid, out


def _ssh_true(netns, address, key):
    """A client that has run one command, or None."""
    client = ng.ssh_client(netns, address, key)
    if client is not None and ng.ssh_run(client, 'echo ok').strip() != 'ok':
        client.close()
        return None
    return client


def _delete_all(cloud):
    """Delete every server and wait until each is gone; the seconds that took."""
    t0 = time.perf_counter()
    _s, _h, body = cloud.request('GET', '/servers')
    sids = [server['id'] for server in body['servers']]
    for sid in sids:
        status, _h, body = cloud.request('DELETE', '/servers/' + sid)
        assert status == 204, body
    for sid in sids:
        cloud.wait_for_status(sid, ('DELETED',), timeout=120)
    return time.perf_counter() - t0


def _boot_times(netns, uri, runs):
    rounds = []
    with tempfile.TemporaryDirectory() as tmp:
        cloud = fixtures.RunningAio(os.path.join(tmp, 'state'), connection_uri=uri, extra={
            ('aio', 'network_dataplane'): True, ('aio', 'network_namespace'): netns,
            ('libvirt', 'virt_type'): 'qemu'})
        try:
            image, key_name, key = _prepare(cloud)
            for _ in range(runs):
                _sid, none = _boot(cloud, image, key_name)
                _sid, net = _boot(cloud, image, key_name, netns, key)
                rounds.append({'networkless': none, 'networked': net,
                               'delete_both_s': _delete_all(cloud)})
        finally:
            cloud.stop()
    return rounds


def _aio_peak_rss(netns, uri, work):
    """VmHWM (MB) of a nova-aio with its data plane at ready and after one networked boot."""
    ports = {name: bench_workload._free_port() for name in ('compute', 'image', 'volume',
                                                             'network')}
    conf = os.path.join(work, 'aio.conf')
    with open(conf, 'w') as handle:
        # Every listener on a free loopback port or off: no fixed port is bound.
        handle.write(
            '[DEFAULT]\nstate_path = %s\nmetadata_listen_port = 0\n'
            'instance_name_template = bench-%s-%%08x\n'
            '[libvirt]\nconnection_uri = %s\nvirt_type = qemu\n[vnc]\nnovncproxy_port = 0\n'
            '[serial_console]\nserialproxy_port = 0\n[spice]\nhtml5proxy_port = 0\n'
            '[aio]\ncompute_port = %d\nimage_port = %d\nvolume_port = %d\nnetwork_port = %d\n'
            'network_dataplane = true\nnetwork_namespace = %s\n'
            % (work, uuid.uuid4().hex[:8], uri, ports['compute'], ports['image'],
               ports['volume'], ports['network'], netns))
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_AIO__')}
    log_path = os.path.join(work, 'aio.log')
    with open(log_path, 'wb') as log:
        proc = subprocess.Popen([os.path.join(os.path.dirname(sys.executable), 'nova-aio'),
                                 '--config-file', conf], stdout=log, stderr=subprocess.STDOUT,
                                env=env)
    cloud = _Remote(ports, work)
    try:
        deadline = time.monotonic() + 120
        while b'nova-aio ready' not in open(log_path, 'rb').read():
            assert proc.poll() is None and time.monotonic() < deadline, \
                open(log_path).read()[-2000:]
            time.sleep(0.1)
        at_ready = bench_workload._rss_mb(proc.pid)
        image, key_name, key = _prepare(cloud)
        _sid, boot = _boot(cloud, image, key_name, netns, key)
        _delete_all(cloud)
        return {'at_ready_mb': at_ready, 'peak_mb': bench_workload._rss_mb(proc.pid),
                'target_mb': RSS_TARGET_MB, 'boot_to_ssh_s': round(boot['ssh_s'], 3)}
    finally:
        try:
            # A failed boot leaves its guest: nova-aio does not destroy guests at stop.
            _delete_all(cloud)
        except OSError:
            pass    # it never answered
        finally:
            proc.terminate()
            proc.wait(60)


def _summary(values):
    return {'median': round(statistics.median(values), 3), 'min': round(min(values), 3),
            'max': round(max(values), 3)}


def _report(rounds):
    result = {side: {key: _summary([r[side][key] for r in rounds]) for key in rounds[0][side]}
              for side in ('networkless', 'networked')}
    result['delete_both_s'] = _summary([r['delete_both_s'] for r in rounds])
    diff = [r['networked']['ssh_s'] - r['networkless']['ready_s'] for r in rounds]
    result['networked_minus_networkless'] = {
        'ssh_minus_ready_s': _summary(diff),
        'active_s': _summary([r['networked']['active_s'] - r['networkless']['active_s']
                              for r in rounds]),
        'first_line_s': _summary([r['networked']['first_line_s'] -
                                  r['networkless']['first_line_s'] for r in rounds])}
    # The guest's own DHCP: from its first console line (modules load, udhcpc starts)
    # to the line saying the lease is applied.
    dhcp = [r['networked']['dhcp_bound_s'] - r['networked']['first_line_s'] for r in rounds]
    result['guest_dhcp_s'] = _summary(dhcp)
    result['guest_dhcp_share_of_networked_ssh'] = _summary(
        [d / r['networked']['ssh_s'] for d, r in zip(dhcp, rounds)])
    # Only a positive difference has shares; null when the networked boot was faster.
    shares = [d / x for d, x in zip(dhcp, diff) if x > 0]
    result['guest_dhcp_share_of_difference'] = _summary(shares) if shares else None
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=5)
    args = parser.parse_args()
    sshguest.check_cache()
    spaces = ng.Namespaces()
    try:
        netns = spaces.add('aio')
        uri = ng.libvirt_peer('start', LIBVIRT_ROOT, HOST_UUID, DISPLAY_PORTS,
                              WEBSOCKET_PORTS, netns)
        result = _report(_boot_times(netns, uri, args.runs))
        with tempfile.TemporaryDirectory() as work:
            result['aio_rss_with_plane'] = _aio_peak_rss(netns, uri, work)
    finally:
        ng.libvirt_peer('stop', LIBVIRT_ROOT, HOST_UUID, DISPLAY_PORTS, WEBSOCKET_PORTS)
        spaces.cleanup()
    result['runs'] = args.runs
    print(json.dumps(result, indent=2))


if __name__ == '__main__':
    main()

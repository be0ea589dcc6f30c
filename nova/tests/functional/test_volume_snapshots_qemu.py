"""Assisted volume snapshots on real QEMU: overlays, then blockCommit and blockRebase."""

import json
import os
import subprocess
import time
import urllib.parse
import uuid

import libvirt
import pytest

from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures
from nova.virt.libvirt import driver_volume_snapshots as dvs

pytestmark = fx.requires_libvirtd()
V = '2.100'
ADMIN = 'admin:admin'
CINDER = {'OpenStack-API-Version': 'volume 3.44'}


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('avs')
    c = fixtures.RunningAio(tmp, connection_uri=fx.QEMU_URI)
    c.root = c.upload_image(bootimg.write_boot_image(str(tmp / 'root.img'), 'ROOT-OK\r\n'))
    yield c
    c.stop()


def volume(cloud):
    status, _h, body = cloud.request('POST', '/v3/demo/volumes', {'volume': {'size': 1}},
                                     url=cloud.aio.urls['volume'], headers=CINDER)
    assert status == 202, body
    vid = body['volume']['id']
    deadline = time.monotonic() + 30
    while cloud.request('GET', '/v3/demo/volumes/' + vid, url=cloud.aio.urls['volume'],
                        headers=CINDER)[2]['volume']['status'] != 'available':
        assert time.monotonic() < deadline
        time.sleep(0.1)
    return vid


def chain(sid, vid, inactive=False):
    """[active file, backing files...] of the volume's disk in the live domain (or
    the active file of the persistent definition)."""
    conn = libvirt.open(fx.QEMU_URI)
    try:
        found = dvs.volume_disk(conn.lookupByUUIDString(sid).XMLDesc(
            libvirt.VIR_DOMAIN_XML_INACTIVE if inactive else 0), vid)
    finally:
        conn.close()
    return found[1]


def wait_chain(sid, vid, wanted, timeout=30, inactive=False):
    deadline = time.monotonic() + timeout
    while (current := chain(sid, vid, inactive)) != wanted:
        assert time.monotonic() < deadline, current
        time.sleep(0.1)


def create(cloud, vid, new_file):
    status, _h, body = cloud.request('POST', '/os-assisted-volume-snapshots', {'snapshot': {
        'volume_id': vid, 'create_info': {'snapshot_id': str(uuid.uuid4()), 'type': 'qcow2',
                                          'new_file': new_file}}}, version=V, token=ADMIN)
    assert status == 200, body


def delete(cloud, **info):
    query = urllib.parse.urlencode({'delete_info': json.dumps(info)})
    status, _h, body = cloud.request('DELETE', '/os-assisted-volume-snapshots/%s?%s'
                                     % (uuid.uuid4(), query), version=V, token=ADMIN)
    assert status == 204, body


def qemu_img(*args):
    subprocess.run(['qemu-img', *args], check=True, capture_output=True)


def backing_of(path):
    # -U: QEMU holds the write lock of the files the guest uses.
    out = subprocess.run(['qemu-img', 'info', '-U', '--output=json', '-f', 'qcow2', path],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out).get('backing-filename')


def test_create_overlays_then_commit_and_pull_them_back(cloud):
    vid = volume(cloud)
    status, _h, body = cloud.request('POST', '/servers', {'server': {
        'name': 'avs', 'imageRef': cloud.root, 'flavorRef': '1', 'networks': 'none',
        'block_device_mapping_v2': [
            {'source_type': 'image', 'uuid': cloud.root, 'destination_type': 'local',
             'boot_index': 0},
            {'source_type': 'volume', 'uuid': vid, 'destination_type': 'volume'}]}},
        version=V)
    assert status == 202, body
    sid = body['server']['id']
    cloud.wait_for_status(sid, ['ACTIVE'])
    [original] = chain(sid, vid)
    folder = os.path.dirname(original)
    snap1, snap2 = os.path.join(folder, 'snap-1'), os.path.join(folder, 'snap-2')

    # Create: the guest now writes to a new overlay backed by the old active file.
    create(cloud, vid, 'snap-1')
    wait_chain(sid, vid, [snap1, original])
    assert backing_of(snap1) == original
    # An overlay the volume service made already (as Cinder does) is used as it is.
    qemu_img('create', '-f', 'qcow2', '-F', 'qcow2', '-b', snap1, snap2)
    create(cloud, vid, 'snap-2')
    wait_chain(sid, vid, [snap2, snap1, original])

    # Refused on the host (not a file name; tempest's delete_info has no type): the
    # chain and the server stay as they were.
    create(cloud, vid, '../escape')
    # A file there that is not an overlay of the active file is never put under the guest.
    qemu_img('create', '-f', 'qcow2', '-F', 'qcow2', '-b', snap1, os.path.join(folder, 'stray'))
    create(cloud, vid, 'stray')
    delete(cloud, volume_id=vid)
    time.sleep(1)
    assert chain(sid, vid) == [snap2, snap1, original]
    assert not os.path.exists(os.path.join(os.path.dirname(folder), 'escape'))
    server = cloud.wait_for_status(sid, ['ACTIVE'], version=V)
    assert server['OS-EXT-STS:task_state'] is None

    # Delete of an older snapshot: blockCommit snap-1 into the original file.
    delete(cloud, volume_id=vid, type='qcow2', file_to_merge='snap-1',
           merge_target_file=os.path.basename(original))
    wait_chain(sid, vid, [snap2, original])
    assert backing_of(snap2) == original
    # Delete of the newest: blockRebase pulls everything into the active file.
    delete(cloud, volume_id=vid, type='qcow2', file_to_merge=None, merge_target_file=None)
    wait_chain(sid, vid, [snap2])
    assert backing_of(snap2) is None

    # The mapping follows the active file: a hard reboot keeps the guest on it.
    status, _h, _b = cloud.request('POST', '/servers/%s/action' % sid,
                                   {'reboot': {'type': 'HARD'}}, version=V)
    assert status == 202
    cloud.wait_for_status(sid, ['ACTIVE'])
    wait_chain(sid, vid, [snap2])

    # A stopped guest, as upstream: libvirt takes the overlay into the definition,
    # and a pull is qemu-img rebase; a commit needs a running guest.
    cloud.request('POST', '/servers/%s/action' % sid, {'os-stop': None}, version=V)
    cloud.wait_for_status(sid, ['SHUTOFF'])
    snap3 = os.path.join(folder, 'snap-3')
    create(cloud, vid, 'snap-3')
    wait_chain(sid, vid, [snap3], inactive=True)
    assert backing_of(snap3) == snap2
    delete(cloud, volume_id=vid, type='qcow2', file_to_merge='snap-2',
           merge_target_file=os.path.basename(original))
    # Only a file of the volume's own chain can become the base.
    delete(cloud, volume_id=vid, type='qcow2', file_to_merge='/etc/hostname',
           merge_target_file=None)
    time.sleep(1)
    assert backing_of(snap3) == snap2
    delete(cloud, volume_id=vid, type='qcow2', file_to_merge=None, merge_target_file=None)
    deadline = time.monotonic() + 30
    while backing_of(snap3) is not None:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    cloud.request('POST', '/servers/%s/action' % sid, {'os-start': None}, version=V)
    cloud.wait_for_status(sid, ['ACTIVE'])
    wait_chain(sid, vid, [snap3])
    assert cloud.request('DELETE', '/servers/' + sid)[0] == 204
    cloud.wait_for_status(sid, ['DELETED'])

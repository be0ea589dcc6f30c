"""Event mapping, our domain names and files, and recreation of a missing domain."""

import libvirt
import pytest

from nova import power_state as ps
from nova.virt.libvirt import driver_lifecycle as dl
from nova.virt.libvirt import events


@pytest.mark.parametrize('event, detail, expected', [
    (libvirt.VIR_DOMAIN_EVENT_STARTED, 0, ps.RUNNING),
    (libvirt.VIR_DOMAIN_EVENT_RESUMED, 0, ps.RUNNING),
    (libvirt.VIR_DOMAIN_EVENT_SUSPENDED, 0, ps.PAUSED),
    (libvirt.VIR_DOMAIN_EVENT_STOPPED, libvirt.VIR_DOMAIN_EVENT_STOPPED_DESTROYED,
     ps.SHUTDOWN),
    (libvirt.VIR_DOMAIN_EVENT_CRASHED, 0, ps.CRASHED),
    (libvirt.VIR_DOMAIN_EVENT_PMSUSPENDED, 0, ps.SUSPENDED),
    (libvirt.VIR_DOMAIN_EVENT_SHUTDOWN, 0, None),
    (libvirt.VIR_DOMAIN_EVENT_DEFINED, 0, None),
    (libvirt.VIR_DOMAIN_EVENT_UNDEFINED, 0, None),
    (libvirt.VIR_DOMAIN_EVENT_SUSPENDED, libvirt.VIR_DOMAIN_EVENT_SUSPENDED_POSTCOPY, None),
])
def test_event_power_states(event, detail, expected):
    assert events.power_state_for(event, detail) == expected


@pytest.mark.parametrize('template, ours, not_ours', [
    ('instance-%08x', ['instance-00000001', 'instance-1a2b3c4d'],
     ['instance-', 'instance-0000000g', 'xinstance-00000001', 'foreign-1']),
    ('test-ab12-%08x', ['test-ab12-0000002a'], ['test-cd34-0000002a', 'instance-00000001']),
    ('vm-%(uuid)s', ['vm-0b9e5f0e-1c2d-4e3f-8a9b-0c1d2e3f4a5b'], ['vm-1', 'vm-x']),
    ('node%d.x', ['node12.x'], ['node12yx', 'nodeA.x']),
    ('a%%b-%d', ['a%b-3'], ['a%%b-3']),
])
def test_name_pattern(template, ours, not_ours):
    pattern = dl.name_pattern(template)
    assert all(pattern.match(name) for name in ours)
    assert not any(pattern.match(name) for name in not_ours)


XML = """<domain type='qemu'><name>x</name><devices>
<disk type='file'><source file='%s/disk'/></disk>
<disk type='block'><source dev='/dev/sdz'/></disk>
<serial type='file'><source path='%s/console.log'/></serial></devices></domain>"""


def test_owns_files(tmp_path):
    uuid = '0b9e5f0e-1c2d-4e3f-8a9b-0c1d2e3f4a5b'
    mine = XML % ((str(tmp_path / uuid),) * 2)
    assert dl.owns_files(mine, str(tmp_path), uuid)
    # Another uuid's directory, a sibling with the same prefix, elsewhere.
    assert not dl.owns_files(mine, str(tmp_path), uuid[:-1] + 'c')
    assert not dl.owns_files(XML % ((str(tmp_path / (uuid + 'x')),) * 2),
                             str(tmp_path), uuid)
    assert not dl.owns_files(XML % ('/srv/other', '/srv/other'), str(tmp_path), uuid)


def test_file_paths_of_a_domain():
    xml = """<domain type='qemu'><name>x</name>
<os><type>hvm</type><kernel>/i/kernel</kernel><initrd>/i/initrd</initrd></os><devices>
<disk type='file' device='disk'><source file='/i/disk' index='1'/><target dev='vda'/></disk>
<disk type='block' device='disk'><source dev='/dev/sdz'/><target dev='vdb'/></disk>
<disk type='file' device='cdrom'><target dev='hda'/></disk>
<serial type='file'><source path='/i/console.log'/></serial>
<console type='pty'><source path='/dev/pts/3'/><target type='serial'/></console>
<interface type='network'><source network='default'/></interface>
</devices></domain>"""
    assert dl.file_paths(xml) == ['/i/kernel', '/i/initrd', '/i/disk', '/i/console.log',
                                  '/dev/pts/3']


def test_listener_delivers_events_and_resyncs_after_reconnecting():
    """On libvirt's own test:///default, which sends lifecycle events."""
    import threading
    import uuid as uuidlib
    seen, resyncs = [], threading.Event()
    got = threading.Condition()

    def callback(uuid, state):
        with got:
            seen.append((uuid, state))
            got.notify_all()

    listener = events.LifecycleListener('test:///default', callback, resyncs.set,
                                        retry_interval=0.05).start()
    conn = libvirt.open('test:///default')
    uuid = str(uuidlib.uuid4())
    try:
        assert listener.connected.wait(5)
        dom = conn.defineXML("<domain type='test'><name>lc-%s</name><uuid>%s</uuid>"
                             "<memory>8192</memory><os><type>hvm</type></os></domain>"
                             % (uuid[:8], uuid))
        dom.create()
        dom.suspend()
        dom.destroy()
        expected = [(uuid, ps.RUNNING), (uuid, ps.PAUSED), (uuid, ps.SHUTDOWN)]
        with got:
            assert got.wait_for(lambda: [s for s in seen if s[0] == uuid] == expected, 5)
        # As when libvirtd goes away: the connection is reopened, then a resync.
        listener._on_close(None, libvirt.VIR_CONNECT_CLOSE_REASON_EOF, None)
        assert resyncs.wait(5) and listener.connected.wait(5)
        dom.create()
        with got:
            assert got.wait_for(lambda: seen[-1] == (uuid, ps.RUNNING), 5)
        dom.destroy()
        dom.undefine()
    finally:
        listener.stop()
        conn.close()

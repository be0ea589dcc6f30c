"""Create and rescue of real QEMU guests, service vs bare libvirt-python: to first serial byte."""

import argparse
import os
import shutil
import statistics
import tempfile
import time
import uuid

import libvirt

from nova.tests.fixtures import kernelguest
from nova.tests.fixtures import libvirt as fx
from nova.tests.functional import fixtures

V = '2.106'
POLL = 0.002  # both sides stat the console log this often
# The guest stays up, quiet (console log level 1: no late kernel lines), once
# /init has printed the marker: the next boot is timed on an idle guest and its
# first byte is the only new one.
INIT = kernelguest.INIT_SCRIPT.replace(
    'echo "%s"' % kernelguest.DONE_MARKER,
    'echo 1 > /proc/sys/kernel/printk\necho "%s"' % kernelguest.DONE_MARKER).replace(
    'poweroff -f', 'while true; do sleep 3600; done')


def _grown(path, size, timeout=120):
    """perf_counter() when ``path`` first holds more than ``size`` bytes."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if os.stat(path).st_size > size:
                return time.perf_counter()
        except FileNotFoundError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError('no serial output in %s' % path)
        time.sleep(POLL)


def _quiet(path, count, timeout=120):
    """Wait until the guest printed its last line for the ``count``-th time."""
    deadline = time.monotonic() + timeout
    while True:
        with open(path, errors='replace') as log:
            if log.read().count(kernelguest.DONE_MARKER) >= count:
                return
        if time.monotonic() > deadline:
            raise RuntimeError('guest did not finish booting: %s' % path)
        time.sleep(0.05)


class Ours:
    """The service in-process on qemu:///system; records each define and start."""

    def __init__(self, tmp):
        kernel, busybox = kernelguest.fetch()
        initrd = kernelguest.write_initrd(os.path.join(tmp, 'initrd.gz'), busybox, INIT)
        self.cloud = fixtures.RunningAio(os.path.join(tmp, 'state'), connection_uri=fx.QEMU_URI,
                                         extra={('libvirt', 'virt_type'): 'qemu'})
        host = self.cloud.aio.services[1].manager.driver.host
        self.events, define = [], host.define_guest

        def traced_define(xml, validate=True):
            self.events.append(('define', time.perf_counter(), xml))
            guest = define(xml, validate)
            launch = guest.launch

            def traced_launch(pause=False):
                self.events.append(('launch', time.perf_counter(), None))
                launch(pause)
                self.events.append(('launched', time.perf_counter(), None))
            guest.launch = traced_launch
            return guest
        host.define_guest = traced_define
        try:
            kid, rid = self.cloud.upload_kernel_and_ramdisk(kernel, initrd)
            # console=ttyS0 without "quiet": the kernel's own lines are the first bytes.
            self.image = self.cloud.upload_image(
                fixtures.tiny_disk(os.path.join(tmp, 'root.img')), name='k', kernel_id=kid,
                ramdisk_id=rid, os_command_line='console=ttyS0', hw_rescue_bus='virtio',
                hw_rescue_device='disk')
        except Exception:
            self.cloud.stop()
            raise

    def _phases(self, t0, t1):
        """(seconds to the define call, to the create call, create's own, to the first byte)."""
        at = {name: t for name, t, _x in self.events}
        self.events.clear()
        return (at['define'] - t0, at['launch'] - t0, at['launched'] - at['launch'],
                t1 - at['launched'])

    def create(self):
        t0 = time.perf_counter()
        status, _h, body = self.cloud.request('POST', '/servers', {'server': {
            'name': 'gvl', 'imageRef': self.image, 'flavorRef': '1', 'networks': 'none'}},
            version=V)
        assert status == 202, body
        self.sid = body['server']['id']
        self.dir = os.path.join(self.cloud.conf.instances_path, self.sid)
        self.log = os.path.join(self.dir, 'console.log')
        t1 = _grown(self.log, 0)
        assert self.events, 'serial output before the domain was defined'
        self.xml = self.events[0][2]
        _quiet(self.log, 1)
        self.cloud.wait_for_status(self.sid, ['ACTIVE'])
        return t1 - t0, self._phases(t0, t1)

    def rescue(self):
        size = os.path.getsize(self.log)
        t0 = time.perf_counter()
        status, _h, body = self.cloud.request('POST', '/servers/%s/action' % self.sid,
                                              {'rescue': {}}, version=V)
        assert status == 200, body
        t1 = _grown(self.log, size)
        assert self.events, 'new serial output before the rescue defined its domain'
        self.rescue_xml = self.events[0][2]
        _quiet(self.log, 2)
        self.cloud.wait_for_status(self.sid, ['RESCUE'])
        return t1 - t0, self._phases(t0, t1)

    def delete(self):
        assert self.cloud.request('DELETE', '/servers/' + self.sid)[0] == 204
        self.cloud.wait_for_status(self.sid, ['DELETED'])

    def stop(self):
        """Stop the service, then remove any domain of its name prefix left (a spawn
        still running at the stop defines its domain after the service's clean-up)."""
        self.cloud.stop()
        prefix = self.cloud.conf.instance_name_template.split('%')[0]
        conn = libvirt.open(fx.QEMU_URI)
        try:
            for dom in conn.listAllDomains():
                if dom.name().startswith(prefix):
                    if dom.isActive():
                        dom.destroy()
                    dom.undefine()
        finally:
            conn.close()


class Bare:
    """libvirt-python alone: define and start the XML the service produced, renamed."""

    def __init__(self, tmp, ours):
        self.conn = libvirt.open(fx.QEMU_URI)
        self.tmp = tmp
        # The first boot's XML and files: each round renames them.
        self.source_dir, self.xml, self.rescue_xml = ours.dir, ours.xml, ours.rescue_xml
        self.src_name, self.src_uuid = _element(ours.xml, 'name'), _element(ours.xml, 'uuid')
        self.template = os.path.join(tmp, 'template')
        os.makedirs(self.template)
        for name in ('kernel', 'ramdisk', 'disk', 'disk.rescue'):
            shutil.copy(os.path.join(ours.dir, name), self.template)
        self.name = self.dir = None

    def _rewrite(self, xml):
        return (xml.replace(self.source_dir, self.dir)
                .replace('<name>%s</name>' % self.src_name, '<name>%s</name>' % self.name)
                .replace('<uuid>%s</uuid>' % self.src_uuid, '<uuid>%s</uuid>' % self.uuid))

    def _start(self, xml, size, count, t0):
        """Define and start ``xml``: its time to the first new byte and its phases."""
        t_define = time.perf_counter()
        dom = self.conn.defineXML(xml)
        t_create = time.perf_counter()
        dom.create()
        t_created = time.perf_counter()
        t1 = _grown(self.log, size)
        _quiet(self.log, count)
        return t1 - t0, (t_define - t0, t_create - t0, t_created - t_create, t1 - t_created)

    def create(self):
        self.uuid = str(uuid.uuid4())
        self.name = 'gvl-bare-%s' % self.uuid[:8]
        self.dir = os.path.join(self.tmp, self.name)
        shutil.copytree(self.template, self.dir)
        self.log = os.path.join(self.dir, 'console.log')
        xml = self._rewrite(self.xml)
        return self._start(xml, 0, 1, time.perf_counter())

    def rescue(self):
        """As the service's rescue does: pull the plug, define the rescue XML, start it."""
        xml = self._rewrite(self.rescue_xml)
        size = os.path.getsize(self.log)
        t0 = time.perf_counter()
        self.conn.lookupByName(self.name).destroy()
        return self._start(xml, size, 2, t0)

    def delete(self):
        if self.name is None:
            return
        try:
            dom = self.conn.lookupByName(self.name)
            if dom.isActive():
                dom.destroy()
            dom.undefine()
        except libvirt.libvirtError:
            pass    # never defined
        shutil.rmtree(self.dir, ignore_errors=True)
        self.name = None


def _element(xml, tag):
    return xml.split('<%s>' % tag, 1)[1].split('</%s>' % tag, 1)[0]


def _row(label, ours, bare):
    def stats(values):
        return '%6.3f  %6.3f  %6.3f' % (statistics.median(values), min(values), max(values))
    ratio = statistics.median(ours) / statistics.median(bare)
    paired = statistics.median(o / b for o, b in zip(ours, bare))
    return '%-22s %s   %s   %5.3f  %5.3f' % (label, stats(ours), stats(bare), ratio, paired)


def _phase_row(label, phases):
    cols = list(zip(*phases))
    return '%-22s %s' % (label, '  '.join('%7.3f' % statistics.median(c) for c in cols))


def report(results):
    print('seconds, n=%d rounds   ours: median   min     max    bare: median   min     max'
          '   ratio  paired' % len(results['create']['ours']))
    for row in ('create', 'rescue'):
        print(_row(row + ' -> first byte', results[row]['ours'], results[row]['bare']))
    print('\nphase medians (s)      to define  to create  create()  create ret -> 1st byte')
    for row in ('create', 'rescue'):
        for side in ('ours', 'bare'):
            print(_phase_row('%s %s' % (row, side), results[row][side + '_phases']))
    # The guest's own boot after create() is the same work on both sides but the
    # noisiest part on a shared machine; these ratios charge ours only its extra time
    # before create() is called, and up to its return.
    print('\nours - bare (median of per-round differences), as a ratio on the bare median:')
    for row in ('create', 'rescue'):
        ours, bare = results[row]['ours_phases'], results[row]['bare_phases']
        base = statistics.median(results[row]['bare'])
        before = statistics.median(o[1] - b[1] for o, b in zip(ours, bare))
        through = statistics.median(o[1] + o[2] - b[1] - b[2] for o, b in zip(ours, bare))
        print('  %-7s before create() %+6.1f ms (%.3f)   through create() %+6.1f ms (%.3f)' % (
            row, before * 1000, (base + before) / base, through * 1000, (base + through) / base))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--rounds', type=int, default=5)
    args = parser.parse_args()
    results = {row: {'ours': [], 'bare': [], 'ours_phases': [], 'bare_phases': []}
               for row in ('create', 'rescue')}

    def record(row, side, value):
        results[row][side].append(value[0])
        results[row][side + '_phases'].append(value[1])

    with tempfile.TemporaryDirectory(prefix='bench-gvl-') as tmp:
        ours = Ours(tmp)
        bare = None
        try:
            # Untimed warm-up: fills the service's image cache and captures the XML.
            cold = ours.create(), ours.rescue()
            bare = Bare(tmp, ours)
            ours.delete()
            bare.create()
            bare.rescue()
            bare.delete()
            for i in range(args.rounds):
                # Who goes first alternates, so drift in the machine's load
                # (other jobs share its two cores) falls on both sides.
                sides = (('ours', ours), ('bare', bare))[::1 if i % 2 == 0 else -1]
                for row in ('create', 'rescue'):
                    for name, side in sides:
                        record(row, name, getattr(side, row)())
                ours.delete()
                bare.delete()
        finally:
            if bare is not None:
                bare.delete()
                bare.conn.close()
            ours.stop()
    report(results)
    print('untimed warm-up (ours, image cache cold): create %.3f s (%.3f to the create call), '
          'rescue %.3f s' % (cold[0][0], cold[0][1][1], cold[1][0]))


if __name__ == '__main__':
    main()

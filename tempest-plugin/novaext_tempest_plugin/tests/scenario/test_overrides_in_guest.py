"""Overrides change the guest: disk bus, machine type, NUMA cells, kernel command line."""

import os

from tempest import config
from tempest.lib import decorators
from tempest.lib.common.utils import data_utils

from novaext_tempest_plugin import images, whitebox
from novaext_tempest_plugin.tests import base

CONF = config.CONF


class OverridesInGuestTest(base.BaseNovaExtTest):
    """Each test boots real guests; the domain XML is read when white-box is configured."""

    @classmethod
    def resource_setup(cls):
        super().resource_setup()
        cls.image = cls.upload_disk('guest-img', hw_disk_bus='scsi',
                                    hw_scsi_model='virtio-scsi')
        cls.numa_flavor = cls.make_flavor('numa2', ram=256, vcpus=2)

    def _xml(self, server_id):
        if not whitebox.enabled():
            return None
        return whitebox.domain_xml(server_id)

    @decorators.attr(type='slow')
    @decorators.idempotent_id('c0565fdf-42c8-4bc6-9ab9-8a6c9658c50e')
    def test_disk_bus(self):
        plain = self.boot(self.image)
        changed = self.boot(self.image, overrides={'hw_disk_bus': 'virtio'})
        # Both guests boot their root disk, whichever bus it is on.
        for server in (plain, changed):
            self.wait_console(server['id'], base.ROOT)
        if not whitebox.enabled():
            return
        self.assertEqual([('sda', 'scsi')], [(d['dev'], d['bus']) for d in
                                             whitebox.disks(self._xml(plain['id']))])
        self.assertEqual([('vda', 'virtio')], [(d['dev'], d['bus']) for d in
                                               whitebox.disks(self._xml(changed['id']))])

    @decorators.attr(type='slow')
    @decorators.idempotent_id('50cffe37-08ee-494e-8052-86b0f01b6b5a')
    def test_machine_type(self):
        machine = CONF.novaext.machine_type
        server = self.boot(self.image, overrides={'hw_machine_type': machine,
                                                  'hw_disk_bus': 'virtio'})
        self.wait_console(server['id'], base.ROOT)
        shown = self.servers_client.show_server(server['id'])['server']
        self.assertEqual(machine, shown['image']['properties']['hw_machine_type'])
        if whitebox.enabled():
            # libvirt expands aliases (q35 -> pc-q35-X.Y).
            self.assertIn(machine, whitebox.machine_type(self._xml(server['id'])))

    @decorators.attr(type='slow')
    @decorators.idempotent_id('4bf67a53-e7d1-40a4-a1d5-d086823dad45')
    def test_numa_cells(self):
        if not whitebox.enabled():
            raise self.skipException('needs [novaext] libvirt_uri (the kernel guest '
                                     'test proves NUMA nodes from inside the guest)')
        two = self.boot(self.image, flavor=self.numa_flavor, overrides={'hw_numa_nodes': '2'})
        one = self.boot(self.image, flavor=self.numa_flavor)
        self.assertEqual(2, whitebox.numa_cells(self._xml(two['id'])))
        self.assertEqual(0, whitebox.numa_cells(self._xml(one['id'])))


class KernelGuestOverridesTest(base.BaseNovaExtTest):
    """A kernel+initrd guest reports its command line and NUMA nodes on the console."""

    @classmethod
    def skip_checks(cls):
        super().skip_checks()
        kernel, busybox = CONF.novaext.kernel_path, CONF.novaext.busybox_path
        if not (kernel and busybox and os.path.isfile(kernel) and os.path.isfile(busybox)):
            raise cls.skipException('[novaext] kernel_path and busybox_path must name files')

    @classmethod
    def resource_setup(cls):
        super().resource_setup()
        initrd = images.write_initrd(os.path.join(cls.workdir, 'initrd.gz'),
                                     CONF.novaext.busybox_path)
        kernel = cls.upload(CONF.novaext.kernel_path, 'vmlinuz', disk_format='aki',
                            container_format='aki')
        ramdisk = cls.upload(initrd, 'initrd', disk_format='ari', container_format='ari')
        disk = os.path.join(cls.workdir, 'empty.img')
        with open(disk, 'wb') as handle:
            handle.truncate(images.MiB)
        cls.image = cls.upload(disk, 'kernel-guest', kernel_id=kernel, ramdisk_id=ramdisk,
                               os_command_line='console=ttyS0 novaext=image')
        # A distribution kernel with its initrd does not start in the tiny flavors
        # that boot-sector guests use (64 MiB: not a byte on the console).
        cls.kernel_flavor = cls.make_flavor('kernel', ram=256, vcpus=1)
        cls.numa_flavor = cls.make_flavor('numa2k', ram=256, vcpus=2)

    def _report(self, server_id):
        output = self.wait_console(server_id, images.DONE)
        return images.parse_report(output)

    @decorators.attr(type='slow')
    @decorators.idempotent_id('5f32f79f-122b-4bd6-951c-f922a83fe0d2')
    def test_command_line_and_numa_nodes(self):
        marker = data_utils.rand_name('novaext')
        cmdline = 'console=ttyS0 novaext=%s' % marker
        custom = self.boot(self.image, flavor=self.kernel_flavor,
                           overrides={'os_command_line': cmdline}, wait='ACTIVE')
        numa = self.boot(self.image, flavor=self.numa_flavor,
                         overrides={'hw_numa_nodes': '2'}, wait='ACTIVE')
        plain = self.boot(self.image, flavor=self.kernel_flavor, wait='ACTIVE')
        self.assertEqual(cmdline, self._report(custom['id'])['CMDLINE'])
        self.assertEqual(['node0', 'node1'], self._report(numa['id'])['NODES'])
        report = self._report(plain['id'])
        self.assertEqual('console=ttyS0 novaext=image', report['CMDLINE'])
        self.assertEqual(['node0'], report['NODES'])
        if whitebox.enabled():
            self.assertEqual(cmdline, whitebox.kernel_cmdline(whitebox.domain_xml(custom['id'])))

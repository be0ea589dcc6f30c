"""Stable-device rescue in real guests: the rescue media boots, every other disk stays put.

The rescue images are boot media the plugin builds: they print a marker on
the serial console, so the console output proves which device booted. With
[novaext] libvirt_uri the domain XML is read as well (white-box).
"""

import os

from tempest import config
from tempest.common import waiters
from tempest.lib import decorators
from tempest.lib import exceptions as lib_exc

from novaext_tempest_plugin import images, whitebox
from novaext_tempest_plugin.tests import base

CONF = config.CONF

# bus:device -> (test id, extra rescue image properties, server overrides).
COMBOS = {
    'usb:disk': ('5f09c924-def2-4f20-8da0-b676b270214f', {}, {}),
    'virtio:disk': ('235c87aa-3cbb-4d47-9879-f4677d0ca41b', {}, {}),
    'scsi:disk': ('dc1552e0-81c3-453b-9b98-671a03040885',
                  {'hw_scsi_model': 'virtio-scsi'}, {}),
    'ide:disk': ('558fcd82-e9ab-4a7a-b799-592874aa2a45', {}, {}),
    'ide:cdrom': ('7be01025-1ad6-4824-bdbd-747ec4472b11', {}, {}),
    # SATA needs the q35 machine type's AHCI controller.
    'sata:cdrom': ('028ab23b-9390-462b-9192-5c7155193337', {},
                   {'hw_machine_type': 'q35'}),
    'fdc:floppy': ('f2c54a7a-555b-4f4d-b03c-515036d14304', {}, {}),
}


def _kept(disk):
    """What must not change for a disk other than the rescue media."""
    return disk['dev'], disk['bus'], disk['device'], disk['address']


class _RescueTest(base.BaseNovaExtTest):
    """Rescue helpers; requests at 2.87 unless a test asks for more."""

    min_microversion = '2.87'
    needs_overrides = False

    @classmethod
    def skip_checks(cls):
        super().skip_checks()
        if not CONF.compute_feature_enabled.rescue:
            raise cls.skipException('[compute-feature-enabled] rescue is disabled')
        if not CONF.novaext.stable_rescue:
            raise cls.skipException('[novaext] stable_rescue is disabled')

    @classmethod
    def resource_setup(cls):
        super().resource_setup()
        cls.root = cls.upload_disk('root-img')
        cls.legacy = cls.upload_disk('legacy-rescue', message=base.RESCUE)
        # Root, ephemeral and swap disks; the servers add a config drive.
        cls.full_flavor = cls.make_flavor('full', ram=128, disk=1, swap=64,
                                          **{'OS-FLV-EXT-DATA:ephemeral': 1})
        cls._media = {}

    @classmethod
    def rescue_image(cls, bus, device, **props):
        """An image of the rescue media for ``device``, tagged with bus and device."""
        directory = cls.workdir
        if device == 'cdrom':
            if images.iso_tool() is None:
                raise cls.skipException('no xorriso/genisoimage to build a rescue CD')
            path, fmt = images.write_iso(os.path.join(directory, 'r.iso'), base.RESCUE), 'iso'
        elif device == 'floppy':
            path, fmt = images.write_floppy(os.path.join(directory, 'r.fd'), base.RESCUE), 'raw'
        else:
            path, fmt = images.write_disk(os.path.join(directory, 'r.img'), base.RESCUE), 'raw'
        return cls.upload(path, 'rescue-%s-%s' % (bus, device), disk_format=fmt,
                          hw_rescue_bus=bus, hw_rescue_device=device, **props)

    def _xml(self, server_id):
        return whitebox.domain_xml(server_id) if whitebox.enabled() else None

    def rescue_round_trip(self, server_id, expect, **rescue_args):
        """Rescue, prove what booted and what stayed, unrescue, prove it is back."""
        before = self._xml(server_id)
        self.servers_client.rescue_server(server_id, **rescue_args)
        waiters.wait_for_server_status(self.servers_client, server_id, 'RESCUE')
        self.wait_console(server_id, base.RESCUE)
        if before is not None:
            self._check_stable_layout(before, self._xml(server_id), expect)
        self.servers_client.unrescue_server(server_id)
        waiters.wait_for_server_status(self.servers_client, server_id, 'ACTIVE')
        # The root disk boots again (its marker a second time on the console).
        self.wait_console(server_id, base.ROOT, count=2)
        if before is not None:
            self.assertEqual([_kept(d) for d in whitebox.disks(before)],
                             [_kept(d) for d in whitebox.disks(self._xml(server_id))])

    def _check_stable_layout(self, before, rescued, expect):
        disks = whitebox.disks(rescued)
        media = [d for d in disks if d['boot'] == '1']
        self.assertEqual([expect], [(d['bus'], d['device']) for d in media])
        # The rescue media is the last disk defined; every other keeps its address.
        others = sorted(_kept(d) for d in disks if d['boot'] != '1')
        self.assertEqual(sorted(_kept(d) for d in whitebox.disks(before)), others)


class StableRescueTest(_RescueTest):
    """One rescue round trip per supported bus/device, on a server with every disk kind."""

    def _combo_test(self, combo):
        if combo not in CONF.novaext.rescue_bus_devices:
            raise self.skipException('%s is not in [novaext] rescue_bus_devices' % combo)
        bus, device = combo.split(':')
        _id, props, overrides = COMBOS[combo]
        image = self.rescue_image(bus, device, **props)
        if overrides:
            self.at_version('2.106')
        server = self.boot(self.root, flavor=self.full_flavor, overrides=overrides or None,
                           config_drive=True)
        self.wait_console(server['id'], base.ROOT)
        self.rescue_round_trip(server['id'], (bus, device), rescue_image_ref=image)

    for _combo, (_id, _props, _overrides) in COMBOS.items():
        def _test(self, combo=_combo):
            self._combo_test(combo)
        _test.__name__ = 'test_rescue_%s' % _combo.replace(':', '_')
        _test.__doc__ = 'Stable-device rescue on %s.' % _combo
        locals()[_test.__name__] = decorators.attr(type='slow')(
            decorators.idempotent_id(_id)(_test))
    del _combo, _id, _props, _overrides, _test

    @decorators.attr(type='slow')
    @decorators.idempotent_id('ec0b8cb0-75f2-4887-8ccb-c9f3f015f90d')
    def test_legacy_rescue(self):
        server = self.boot(self.root, flavor=self.full_flavor)
        self.wait_console(server['id'], base.ROOT)
        before = self._xml(server['id'])
        self.servers_client.rescue_server(server['id'], rescue_image_ref=self.legacy)
        waiters.wait_for_server_status(self.servers_client, server['id'], 'RESCUE')
        self.wait_console(server['id'], base.RESCUE)
        if before is not None:
            # Legacy layout: the rescue disk takes the root's device, nothing has
            # boot order 1 of a stable rescue, ephemeral and swap are absent.
            rescued = whitebox.disks(self._xml(server['id']))
            root_dev = whitebox.disks(before)[0]['dev']
            self.assertEqual(root_dev, rescued[0]['dev'])
            self.assertIn('rescue', rescued[0]['source'] or '')
            self.assertLess(len(rescued), len(whitebox.disks(before)) + 1)
        self.servers_client.unrescue_server(server['id'])
        waiters.wait_for_server_status(self.servers_client, server['id'], 'ACTIVE')
        self.wait_console(server['id'], base.ROOT, count=2)

    @decorators.attr(type='slow')
    @decorators.idempotent_id('84beb977-1cac-4d13-8196-471af4a0fe5f')
    def test_override_makes_a_stable_rescue(self):
        if not CONF.novaext.rescue_image_props_override:
            raise self.skipException('[novaext] rescue_image_props_override is disabled')
        self.at_version('2.106')
        server = self.boot(self.root, flavor=self.full_flavor)
        self.wait_console(server['id'], base.ROOT)
        # An untagged image, made a USB stick for this rescue only.
        self.rescue_round_trip(server['id'], ('usb', 'disk'), rescue_image_ref=self.legacy,
                               image_props_override={'hw_rescue_bus': 'usb'})


class VolumeBackedRescueTest(_RescueTest):
    """Rescue of a volume-backed server at 2.87 (stable rescue images only)."""

    @classmethod
    def skip_checks(cls):
        super().skip_checks()
        if not CONF.service_available.cinder:
            raise cls.skipException('cinder is not available')
        if not CONF.novaext.volume_backed_rescue:
            raise cls.skipException('[novaext] volume_backed_rescue is disabled')

    def _boot_from_volume(self):
        bdm = [{'uuid': self.root, 'source_type': 'image', 'destination_type': 'volume',
                'boot_index': 0, 'volume_size': 1, 'delete_on_termination': True}]
        server = self.boot(None, block_device_mapping_v2=bdm)
        self.wait_console(server['id'], base.ROOT)
        return server

    @decorators.attr(type='slow')
    @decorators.idempotent_id('69bf5dea-a906-448e-8fee-b622543e6453')
    def test_volume_backed_rescue(self):
        server = self._boot_from_volume()
        image = self.rescue_image('usb', 'disk')
        self.at_version('2.86')
        self.assertRaises(lib_exc.BadRequest, self.servers_client.rescue_server,
                          server['id'], rescue_image_ref=image)
        self.at_version('2.87')
        # A legacy rescue image cannot rescue a volume-backed server.
        self.assertRaises(lib_exc.BadRequest, self.servers_client.rescue_server,
                          server['id'], rescue_image_ref=self.legacy)
        self.rescue_round_trip(server['id'], ('usb', 'disk'), rescue_image_ref=image)

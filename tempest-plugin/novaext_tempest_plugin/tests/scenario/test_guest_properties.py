"""Hardware overrides (2.105) in the guest's domain XML, read through the white-box libvirt URI."""

import xml.etree.ElementTree as ElementTree

from tempest.lib import decorators
from tempest.lib import exceptions as lib_exc

from novaext_tempest_plugin import whitebox
from novaext_tempest_plugin.tests import base

# One boot carries them all: each real guest costs seconds under TCG.
OVERRIDES = {'hw_disk_bus': 'virtio', 'hw_cpu_sockets': '2', 'hw_rng_model': 'virtio',
             'hw_watchdog_action': 'pause', 'hw_serial_port_count': '2',
             'hw_time_hpet': 'true', 'hw_pmu': 'false', 'hw_sound_model': 'ich9',
             'hw_usb_model': 'qemu-xhci', 'hw_input_bus': 'virtio',
             'hw_virtio_packed_ring': 'true'}


class GuestPropertiesTest(base.BaseNovaExtTest):

    @classmethod
    def resource_setup(cls):
        super().resource_setup()
        cls.image = cls.upload_disk('props-img')
        cls.flavor = cls.make_flavor('props2', ram=256, vcpus=2)

    @decorators.attr(type='slow')
    @decorators.idempotent_id('5f0e9a63-2b7c-4d4e-9a38-6a1f3b7c2d10')
    def test_hardware_overrides_reach_the_domain(self):
        if not whitebox.enabled():
            raise self.skipException('[novaext] libvirt_uri is not set')
        server = self.boot(self.image, flavor=self.flavor, overrides=OVERRIDES)
        self.wait_console(server['id'], base.ROOT)
        root = ElementTree.fromstring(whitebox.domain_xml(server['id']))
        topology = root.find('cpu/topology')
        self.assertEqual(('2', '1', '1'), (topology.get('sockets'), topology.get('cores'),
                                           topology.get('threads')))
        self.assertEqual('virtio', root.find('devices/rng').get('model'))
        self.assertEqual('pause', root.find('devices/watchdog').get('action'))
        self.assertEqual(2, len(root.findall('devices/serial')))
        self.assertEqual('yes', root.find("clock/timer[@name='hpet']").get('present'))
        self.assertEqual('off', root.find('features/pmu').get('state'))
        self.assertEqual('ich9', root.find('devices/sound').get('model'))
        self.assertIn('qemu-xhci', [c.get('model') for c in
                                    root.iterfind("devices/controller[@type='usb']")])
        self.assertIn(('keyboard', 'virtio'), [(i.get('type'), i.get('bus'))
                                               for i in root.iterfind('devices/input')])
        self.assertEqual('on', root.find("devices/disk[@device='disk']/driver").get('packed'))
        # Upstream's metadata element names the flavor.
        ns = {'nova': 'http://openstack.org/xmlns/libvirt/nova/1.1'}
        self.assertEqual('2', root.find('metadata/nova:instance/nova:flavor/nova:vcpus',
                                        ns).text)

    @decorators.idempotent_id('0c7d1b55-83e4-4b8f-a1e2-3d9f6e5a7b21')
    def test_impossible_values_are_refused_before_the_server_exists(self):
        for overrides, word in (({'hw_cpu_cores': '-1'}, 'hw_cpu_cores'),
                                ({'hw_serial_port_count': '-5'}, 'hw_serial_port_count'),
                                ({'hw_cpu_realtime_mask': 'garbage'}, 'hw_cpu_realtime_mask'),
                                ({'hw_machine_type': 'no-such-machine'}, 'no-such-machine')):
            error = self.assertRaises(lib_exc.BadRequest, self.boot, self.image,
                                      flavor=self.flavor, overrides=overrides, wait=None)
            self.assertIn(word, str(error))

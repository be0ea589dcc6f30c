"""image_props_override on servers (2.105): create, show, list, update, rebuild, older versions."""

from tempest.common import waiters
from tempest.lib import decorators

from novaext_tempest_plugin.tests import base

OVERRIDES = {'hw_disk_bus': 'virtio', 'os_command_line': 'console=ttyS0 novaext=1'}


class ImagePropsOverrideTest(base.BaseNovaExtTest):
    """Responses are validated against the 2.105 schemas by the servers client."""

    @classmethod
    def resource_setup(cls):
        super().resource_setup()
        cls.image = cls.upload_disk('override-img', hw_disk_bus='scsi',
                                    hw_scsi_model='virtio-scsi')

    @decorators.idempotent_id('80f6256d-0dad-4564-953b-23d626bbe73a')
    def test_show_has_overrides_and_effective_properties(self):
        server = self.boot(self.image, overrides=OVERRIDES)
        shown = self.servers_client.show_server(server['id'])['server']
        self.assertEqual(OVERRIDES, shown['image_props_override'])
        props = shown['image']['properties']
        # The image's own properties with the overrides on top.
        self.assertEqual('virtio', props['hw_disk_bus'])
        self.assertEqual('virtio-scsi', props['hw_scsi_model'])
        self.assertEqual('console=ttyS0 novaext=1', props['os_command_line'])

    @decorators.idempotent_id('35d263f5-6948-45c1-b49d-24a34f164e3a')
    def test_list_detail_and_plain_server(self):
        with_overrides = self.boot(self.image, overrides=OVERRIDES)
        plain = self.boot(self.image)
        servers = {s['id']: s for s in
                   self.servers_client.list_servers(detail=True)['servers']}
        self.assertEqual(OVERRIDES, servers[with_overrides['id']]['image_props_override'])
        self.assertEqual({}, servers[plain['id']]['image_props_override'])
        self.assertEqual('scsi', servers[plain['id']]['image']['properties']['hw_disk_bus'])

    @decorators.idempotent_id('bbe0bec0-746d-4e46-932e-d24abbf72ed5')
    def test_update_and_rebuild_keep_the_overrides(self):
        server = self.boot(self.image, overrides=OVERRIDES)
        updated = self.servers_client.update_server(server['id'], name='renamed')['server']
        self.assertEqual(OVERRIDES, updated['image_props_override'])
        other = self.upload_disk('rebuild-img', hw_disk_bus='ide', hw_video_model='vga')
        rebuilt = self.servers_client.rebuild_server(server['id'], other)['server']
        self.assertEqual(OVERRIDES, rebuilt['image_props_override'])
        waiters.wait_for_server_status(self.servers_client, server['id'], 'ACTIVE')
        shown = self.servers_client.show_server(server['id'])['server']
        # Applied again on top of the new image's properties.
        self.assertEqual('virtio', shown['image']['properties']['hw_disk_bus'])
        self.assertEqual('vga', shown['image']['properties']['hw_video_model'])
        self.assertNotIn('hw_scsi_model', shown['image']['properties'])

    @decorators.idempotent_id('24175b54-e51c-417f-8db6-469f84ba26e6')
    def test_absent_below_2_105(self):
        server = self.boot(self.image, overrides=OVERRIDES)
        self.at_version('2.104')
        # The 2.100 schemas forbid any extra key; check explicitly as well.
        shown = self.servers_client.show_server(server['id'])['server']
        self.assertNotIn('image_props_override', shown)
        listed = self.servers_client.list_servers(detail=True)['servers']
        self.assertTrue(all('image_props_override' not in s for s in listed))
        # Effective properties are still there (2.98).
        self.assertEqual('virtio', shown['image']['properties']['hw_disk_bus'])

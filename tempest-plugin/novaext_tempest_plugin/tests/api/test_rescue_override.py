"""image_props_override on the rescue action (2.106) and its refusals."""

from tempest import config
from tempest.common import waiters
from tempest.lib import decorators
from tempest.lib import exceptions as lib_exc

from novaext_tempest_plugin.tests import base

CONF = config.CONF


class RescueOverrideTest(base.BaseNovaExtTest):

    min_microversion = '2.106'

    @classmethod
    def skip_checks(cls):
        super().skip_checks()
        if not CONF.novaext.rescue_image_props_override:
            raise cls.skipException('[novaext] rescue_image_props_override is disabled')
        if not CONF.compute_feature_enabled.rescue:
            raise cls.skipException('[compute-feature-enabled] rescue is disabled')

    @classmethod
    def resource_setup(cls):
        super().resource_setup()
        cls.image = cls.upload_disk('root-img')
        cls.rescue_image = cls.upload_disk('rescue-img', message=base.RESCUE)

    @decorators.idempotent_id('60e1ddba-301a-4754-b859-fabfefc04ba4')
    def test_rescue_with_overrides_and_back(self):
        server = self.boot(self.image)
        # The client validates the rescue response (adminPass) schema.
        self.servers_client.rescue_server(
            server['id'], rescue_image_ref=self.rescue_image,
            image_props_override={'hw_rescue_bus': 'usb'})
        waiters.wait_for_server_status(self.servers_client, server['id'], 'RESCUE')
        # For that rescue only: the server's own properties are unchanged.
        shown = self.servers_client.show_server(server['id'])['server']
        self.assertEqual({}, shown['image_props_override'])
        self.assertNotIn('hw_rescue_bus', shown['image']['properties'])
        self.servers_client.unrescue_server(server['id'])
        waiters.wait_for_server_status(self.servers_client, server['id'], 'ACTIVE')

    @decorators.attr(type=['negative'])
    @decorators.idempotent_id('3d2f7218-5dc4-4a7e-b7e6-3eade5255d8e')
    def test_refusals_leave_the_server_active(self):
        server = self.boot(self.image)
        self.assertRaises(lib_exc.BadRequest, self.servers_client.rescue_server,
                          server['id'], rescue_image_ref=self.rescue_image,
                          image_props_override={'hw_rescue_bus': 'carrier-pigeon'})
        key = CONF.novaext.denied_override_key
        if key:
            self.assertRaises(lib_exc.Forbidden, self.servers_client.rescue_server,
                              server['id'], rescue_image_ref=self.rescue_image,
                              image_props_override={key: 'abc'})
        self.at_version('2.105')
        self.assertRaises(lib_exc.BadRequest, self.servers_client.rescue_server,
                          server['id'], rescue_image_ref=self.rescue_image,
                          image_props_override={'hw_rescue_bus': 'usb'})
        shown = self.servers_client.show_server(server['id'])['server']
        self.assertEqual('ACTIVE', shown['status'])
        self.assertIsNone(shown['OS-EXT-STS:task_state'])

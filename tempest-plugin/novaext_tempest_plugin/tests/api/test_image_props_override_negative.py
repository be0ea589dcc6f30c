"""Refused overrides: 400 for bad keys/values/versions, 403 for denied keys; nothing created."""

from tempest import config
from tempest.lib import decorators
from tempest.lib import exceptions as lib_exc
from tempest.lib.common.utils import data_utils

from novaext_tempest_plugin.tests import base

CONF = config.CONF


class ImagePropsOverrideNegativeTest(base.BaseNovaExtTest):

    @classmethod
    def resource_setup(cls):
        super().resource_setup()
        cls.image = cls.upload_disk('negative-img')

    def _refused(self, exc, overrides):
        name = data_utils.rand_name(prefix=CONF.resource_name_prefix, name='refused')
        body = dict(name=name, imageRef=self.image, flavorRef=CONF.compute.flavor_ref,
                    networks='none', image_props_override=overrides)
        err = self.assertRaises(exc, self.servers_client.create_server, **body)
        self.assertNotIn(name, self.server_names())
        return str(err)

    @decorators.attr(type=['negative'])
    @decorators.idempotent_id('2ea96e5a-9f72-4cf1-914e-2614363548a7')
    def test_unknown_key(self):
        message = self._refused(lib_exc.BadRequest, {'hw_no_such_property': 'x'})
        self.assertIn('hw_no_such_property', message)

    @decorators.attr(type=['negative'])
    @decorators.idempotent_id('23d83914-251e-493f-a827-2bc885eab411')
    def test_bad_value(self):
        message = self._refused(lib_exc.BadRequest, {'hw_disk_bus': 'floppy-ish'})
        self.assertIn('hw_disk_bus', message)

    @decorators.attr(type=['negative'])
    @decorators.idempotent_id('d3b66f3b-4e5a-4918-92e7-5205fe76bfa3')
    def test_value_must_be_a_string(self):
        self._refused(lib_exc.BadRequest, {'hw_numa_nodes': 2})

    @decorators.attr(type=['negative'])
    @decorators.idempotent_id('25935c00-f4f2-4363-a998-dd7c2bf78b08')
    def test_denied_key_is_forbidden(self):
        key = CONF.novaext.denied_override_key
        if not key:
            raise self.skipException('[novaext] denied_override_key is empty')
        message = self._refused(lib_exc.Forbidden, {key: 'abc'})
        self.assertIn(key, message)

    @decorators.attr(type=['negative'])
    @decorators.idempotent_id('729da9ff-3bbc-47cf-89ba-6fe2036a69b9')
    def test_field_below_its_microversion(self):
        self.at_version('2.104')
        message = self._refused(lib_exc.BadRequest, {'hw_disk_bus': 'virtio'})
        self.assertIn('image_props_override', message)

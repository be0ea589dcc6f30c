"""Common set-up: the schema-checking servers client, images the plugin builds, guests."""

import os
import tempfile
import time

from tempest import config
from tempest.api.compute import base
from tempest.common import waiters
from tempest.lib.common.utils import data_utils, test_utils
from tempest.lib.services.compute import base_compute_client

from novaext_tempest_plugin import images

CONF = config.CONF
ROOT = 'NOVAEXT-ROOT-OK'
RESCUE = 'NOVAEXT-RESCUE-OK'


class BaseNovaExtTest(base.BaseV2ComputeAdminTest):
    """Primary (the user) and admin (flavors) credentials; requests at min_microversion."""

    min_microversion = '2.105'
    max_microversion = 'latest'
    credentials = ['primary', 'admin']
    # False in classes whose tests do not all need boot-time overrides.
    needs_overrides = True

    @classmethod
    def skip_checks(cls):
        super().skip_checks()
        if cls.needs_overrides and not CONF.novaext.image_props_override:
            raise cls.skipException('[novaext] image_props_override is disabled')

    @classmethod
    def setup_clients(cls):
        super().setup_clients()
        eip = CONF.compute_feature_enabled.enable_instance_password
        # Every server call validates its response with the 2.105 schemas too.
        cls.servers_client = cls.os_primary.novaext.ServersClient(
            enable_instance_password=eip)
        cls.images_client = cls.os_primary.image_client_v2

    @classmethod
    def resource_setup(cls):
        super().resource_setup()
        cls.workdir = tempfile.mkdtemp(prefix='novaext-')
        cls.addClassResourceCleanup(_rmtree, cls.workdir)

    # ------------------------------------------------------------ images

    @classmethod
    def upload(cls, path, name, disk_format='raw', container_format='bare', **props):
        """Upload ``path`` as a private image with ``props``; deleted after the class."""
        image = cls.images_client.create_image(
            name=data_utils.rand_name(prefix=CONF.resource_name_prefix, name=name),
            disk_format=disk_format, container_format=container_format,
            visibility='private', **props)
        cls.addClassResourceCleanup(test_utils.call_and_ignore_notfound_exc,
                                    cls.images_client.delete_image, image['id'])
        with open(path, 'rb') as handle:
            cls.images_client.store_image_file(image['id'], handle)
        waiters.wait_for_image_status(cls.images_client, image['id'], 'active')
        return image['id']

    @classmethod
    def upload_disk(cls, name, message=ROOT, **props):
        return cls.upload(images.write_disk(os.path.join(cls.workdir, name), message), name,
                          **props)

    @classmethod
    def make_flavor(cls, name, ram=128, vcpus=1, disk=1, **kwargs):
        flavor = cls.admin_flavors_client.create_flavor(
            name=data_utils.rand_name(prefix=CONF.resource_name_prefix, name=name),
            ram=ram, vcpus=vcpus, disk=disk, id=data_utils.rand_uuid(), **kwargs)['flavor']
        cls.addClassResourceCleanup(test_utils.call_and_ignore_notfound_exc,
                                    cls.admin_flavors_client.delete_flavor, flavor['id'])
        return flavor['id']

    # ----------------------------------------------------------- servers

    def boot(self, image_id, flavor=None, overrides=None, wait='ACTIVE', **kwargs):
        """Create a server (deleted at clean-up) and wait for ``wait``."""
        body = dict(name=data_utils.rand_name(prefix=CONF.resource_name_prefix,
                                              name=self.__class__.__name__),
                    flavorRef=flavor or CONF.compute.flavor_ref, networks='none', **kwargs)
        if image_id:
            body['imageRef'] = image_id
        if overrides is not None:
            body['image_props_override'] = overrides
        server = self.servers_client.create_server(**body)['server']
        self.addCleanup(waiters.wait_for_server_termination, self.servers_client,
                        server['id'])
        self.addCleanup(test_utils.call_and_ignore_notfound_exc,
                        self.servers_client.delete_server, server['id'])
        if wait:
            waiters.wait_for_server_status(self.servers_client, server['id'], wait)
        return server

    def at_version(self, version):
        """Send the rest of this test's requests at ``version``."""
        # Not tempest's APIMicroversionFixture: its clean-up resets the version
        # to None instead of the class's, which breaks the next test.
        previous = base_compute_client.COMPUTE_MICROVERSION
        base_compute_client.COMPUTE_MICROVERSION = version
        self.addCleanup(setattr, base_compute_client, 'COMPUTE_MICROVERSION', previous)

    def console(self, server_id):
        return self.servers_client.get_console_output(server_id)['output']

    def wait_console(self, server_id, text, count=1):
        """Wait until ``text`` was printed ``count`` times; return the output."""
        deadline = time.monotonic() + CONF.novaext.console_timeout
        while True:
            output = self.console(server_id)
            if output.count(text) >= count:
                return output
            if time.monotonic() > deadline:
                self.fail('%r not printed %d time(s) by %s within %ss; console: %r'
                          % (text, count, server_id, CONF.novaext.console_timeout,
                             output[-2000:]))
            time.sleep(2)

    def server_names(self):
        return {s['name'] for s in self.servers_client.list_servers()['servers']}


def _rmtree(path):
    import shutil
    shutil.rmtree(path, ignore_errors=True)

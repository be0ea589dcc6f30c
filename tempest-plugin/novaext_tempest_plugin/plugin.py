"""The tempest.test_plugins entry point: tests, the [novaext] options and a client."""

import os

from tempest import config
from tempest.test_discover import plugins

from novaext_tempest_plugin import config as ext_config


class NovaExtTempestPlugin(plugins.TempestPlugin):

    def load_tests(self):
        base_path = os.path.split(os.path.dirname(os.path.abspath(__file__)))[0]
        return os.path.join(base_path, 'novaext_tempest_plugin', 'tests'), base_path

    def register_opts(self, conf):
        config.register_opt_group(conf, ext_config.group, ext_config.opts)

    def get_opt_lists(self):
        return [(ext_config.group.name, ext_config.opts)]

    def get_service_clients(self):
        # The servers client speaks to the compute endpoint, so it takes the
        # [compute] settings (catalog type, region, endpoint type, timeouts).
        params = config.service_client_config('compute')
        params.update({'name': 'novaext', 'service_version': 'novaext.compute',
                       'module_path': 'novaext_tempest_plugin.services',
                       'client_names': ['ServersClient']})
        return [params]

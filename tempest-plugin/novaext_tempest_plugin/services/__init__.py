"""Service clients of the plugin (registered by the plugin as 'novaext')."""

from novaext_tempest_plugin.services.servers_client import ServersClient

__all__ = ['ServersClient']

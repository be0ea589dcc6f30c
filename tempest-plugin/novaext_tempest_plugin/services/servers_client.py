"""tempest's ServersClient, validating responses with this service's 2.105 schemas too."""

from tempest.lib.api_schema.response.compute.v2_100 import servers as servers_v2_100
from tempest.lib.services.compute import servers_client

from novaext_tempest_plugin.services import schemas


def _versions():
    """Upstream's table with its open-ended last range closed at 2.104."""
    table = [dict(entry) for entry in servers_client.ServersClient.schema_versions_info]
    assert table[-1]['schema'] is servers_v2_100 and table[-1]['max'] is None
    table[-1]['max'] = '2.104'
    table.append({'min': '2.105', 'max': None, 'schema': schemas.v2_105})
    return table


class ServersClient(servers_client.ServersClient):
    """Adds nothing but the schemas: every call is upstream tempest's."""

    schema_versions_info = _versions()

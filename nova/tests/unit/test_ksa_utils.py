"""Service catalog parsing: keystonemiddleware's v2 layout and Keystone's v3 layout."""

import pytest

from nova import ksa_utils

# What keystonemiddleware puts in X-Service-Catalog: the v2 layout.
V2 = [
    {'type': 'image', 'name': 'glance', 'endpoints': [
        {'region': 'RegionOne', 'publicURL': 'http://pub:9292',
         'internalURL': 'http://int:9292', 'adminURL': 'http://adm:9292'},
        {'region': 'RegionTwo', 'publicURL': 'http://two:9292'}]},
    {'type': 'volumev3', 'name': 'cinderv3', 'endpoints': [
        {'region': 'RegionOne', 'publicURL': 'http://pub:8776/v3/p1'}]},
]
# A token's catalog from Keystone v3.
V3 = [
    {'type': 'image', 'name': 'glance', 'endpoints': [
        {'region': 'RegionOne', 'region_id': 'RegionOne', 'interface': 'public',
         'url': 'http://pub:9292'},
        {'region': 'RegionOne', 'region_id': 'RegionOne', 'interface': 'internal',
         'url': 'http://int:9292'},
        {'region': 'RegionTwo', 'region_id': 'RegionTwo', 'interface': 'public',
         'url': 'http://two:9292'}]},
    {'type': 'volumev3', 'name': 'cinderv3', 'endpoints': [
        {'region': 'RegionOne', 'region_id': 'RegionOne', 'interface': 'public',
         'url': 'http://pub:8776/v3/p1'}]},
]


@pytest.mark.parametrize('catalog', [V2, V3], ids=['v2', 'v3'])
def test_interfaces_in_order_of_preference(catalog):
    url = ksa_utils.catalog_url
    assert url(catalog, 'image', ['internal', 'public'], 'RegionOne') == 'http://int:9292'
    assert url(catalog, 'image', ['public'], 'RegionOne') == 'http://pub:9292'
    assert url(catalog, 'image', 'public', 'RegionTwo') == 'http://two:9292'
    # Only public there: the next valid interface is taken.
    assert url(catalog, 'volumev3', ['internal', 'public']) == 'http://pub:8776/v3/p1'
    # Service type aliases, as keystoneauth knows them.
    assert url(catalog, 'block-storage', ['public']) == 'http://pub:8776/v3/p1'


@pytest.mark.parametrize('catalog', [V2, V3], ids=['v2', 'v3'])
def test_absent_is_none(catalog):
    url = ksa_utils.catalog_url
    assert url(catalog, 'compute', ['public']) is None
    assert url(catalog, 'image', ['public'], 'RegionThree') is None
    assert url(catalog, 'volumev3', ['internal']) is None
    assert url([], 'image', ['public']) is None
    assert url(None, 'image', ['public']) is None


def test_token_auth_reads_a_v2_catalog():
    auth = ksa_utils.TokenAuth('t', V2, 'p1')
    assert auth._catalog_url('image', ['internal', 'public'], None, None) == \
        'http://int:9292'

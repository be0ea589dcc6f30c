"""/extensions as upstream still serves it, checked with tempest's schema."""

from nova.tests.functional.api import tempest_schemas as ts


def test_list_and_show(aio):
    status, _h, body = aio.request('GET', '/extensions', version='2.104')
    ts.validate('extensions', 'list_extensions', '2.1', status, body)
    assert 'Hosts' in [e['name'] for e in body['extensions']]
    aliases = [e['alias'] for e in body['extensions']]
    assert len(aliases) == len(set(aliases))
    status, _h, body = aio.request('GET', '/extensions/os-consoles')
    assert status == 200 and body['extension']['alias'] == 'os-consoles'
    assert aio.request('GET', '/extensions/os-nothing')[0] == 404

"""The volume proxy os-volumes / os-snapshots (microversions up to 2.35) on the all-in-one."""

import time

from nova.tests.functional.api import tempest_schemas as ts


def _wait(aio, path, key, wanted, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        status, _h, body = aio.request('GET', path)
        if wanted is None and status == 404:
            return None
        if status == 200 and body[key]['status'] == wanted:
            return body[key]
        assert time.monotonic() < deadline, body
        time.sleep(0.1)


def test_volume_and_snapshot_lifecycle(aio):
    body = {'volume': {'size': 1, 'display_name': 'proxied', 'display_description': 'd',
                       'metadata': {'k': 'v'}}}
    status, _h, created = aio.request('POST', '/os-volumes', body, version='2.35')
    ts.validate('volumes', 'create_get_volume', '2.1', status, created)
    vid = created['volume']['id']
    vol = _wait(aio, '/os-volumes/' + vid, 'volume', 'available')
    assert vol['displayName'] == 'proxied' and vol['attachments'] == [{}]
    assert vol['metadata'] == {'k': 'v'} and vol['size'] == 1
    # The volume service records who made it (the caller, through the proxy).
    status, _h, native = aio.request('GET', '/v3/demo/volumes/' + vid,
                                     url=aio.aio.urls['volume'])
    assert status == 200 and native['volume']['user_id'] == 'demo'
    for path in ('/os-volumes', '/os-volumes/detail'):
        status, _h, listed = aio.request('GET', path)
        ts.validate('volumes', 'list_volumes', '2.1', status, listed)
        assert vid in [v['id'] for v in listed['volumes']]
    assert len(aio.request('GET', '/os-volumes?limit=1')[2]['volumes']) == 1
    status, _h, snap = aio.request('POST', '/os-snapshots', {'snapshot': {
        'volume_id': vid, 'display_name': 'snap', 'force': 'false'}})
    ts.validate('snapshots', 'create_get_snapshot', '2.1', status, snap)
    sid = snap['snapshot']['id']
    _wait(aio, '/os-snapshots/' + sid, 'snapshot', 'available')
    status, _h, listed = aio.request('GET', '/os-snapshots/detail')
    ts.validate('snapshots', 'list_snapshots', '2.1', status, listed)
    assert sid in [s['id'] for s in listed['snapshots']]
    assert aio.request('DELETE', '/os-snapshots/' + sid)[0] == 202
    _wait(aio, '/os-snapshots/' + sid, 'snapshot', None)
    assert aio.request('DELETE', '/os-volumes/' + vid)[0] == 202
    _wait(aio, '/os-volumes/' + vid, 'volume', None)


def test_refusals(aio):
    assert aio.request('GET', '/os-volumes', version='2.36')[0] == 404
    assert aio.request('GET', '/os-snapshots', version='2.36')[0] == 404
    assert aio.request('GET', '/os-volumes/' + '0' * 32)[0] == 404
    assert aio.request('DELETE', '/os-snapshots/' + '0' * 32)[0] == 404
    status, _h, body = aio.request('POST', '/os-volumes', {'volume': {'size': 0}})
    assert status == 400 and 'size' in body['badRequest']['message']
    status, _h, body = aio.request('POST', '/os-volumes', {'volume': {'name': 'x'}})
    assert status == 400 and 'size' in body['badRequest']['message']
    status, _h, body = aio.request('POST', '/os-snapshots', {'snapshot': {}})
    assert status == 400 and 'volume_id' in body['badRequest']['message']

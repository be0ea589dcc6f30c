"""Another project's resources answer exactly as absent ones: status, message, page.

Alice names bob's server, image, volume, key pair and server group wherever
the API takes an id or a name, then an id that exists nowhere; the two
answers must be the same once each id is replaced by a placeholder. Upstream
leaks here (a marker of another project's server pages from it); this
service does not (doc/source/user/cross-project.rst).
"""

import json
import time
import uuid

import pytest

from nova.tests.functional.api.conftest import server_body

ALICE, BOB = 'alice:alice', 'bob:bob'
V = '2.87'


def _normalized(answer, ids):
    status, body = answer
    text = json.dumps(body, sort_keys=True)
    for name, value in ids.items():
        text = text.replace(value, '<%s>' % name)
    return status, json.loads(text)


def _boot(aio, image, token, name, **extra):
    status, _h, body = aio.request('POST', '/servers', server_body(image, name=name, **extra),
                                   version='2.37', token=token)
    assert status == 202, body
    return aio.wait_for_status(body['server']['id'], ['ACTIVE'], token=token)['id']


@pytest.fixture(scope='module')
def world(aio, image, nano, tmp_path_factory):
    from nova.tests.functional import fixtures
    disk = fixtures.tiny_disk(tmp_path_factory.mktemp('bob') / 'bob.raw')
    bob = {'image': aio.upload_image(disk, name='bob-private', token=BOB),
           'server': _boot(aio, image, BOB, 'bob-srv'),
           'keypair': 'bobkey', 'group': None, 'volume': None}
    status, _h, body = aio.request('POST', '/os-keypairs', {'keypair': {'name': 'bobkey'}},
                                   token=BOB)
    assert status == 200, body
    status, _h, body = aio.request('POST', '/os-server-groups', {'server_group': {
        'name': 'bob-group', 'policies': ['affinity']}}, token=BOB)
    assert status == 200, body
    bob['group'] = body['server_group']['id']
    status, _h, body = aio.request('POST', '/os-volumes', {'volume': {'size': 1}},
                                   version='2.35', token=BOB)
    assert status == 200, body
    bob['volume'] = body['volume']['id']
    deadline = time.monotonic() + 60
    while aio.request('GET', '/os-volumes/' + bob['volume'], version='2.35',
                      token=BOB)[2]['volume']['status'] != 'available':
        assert time.monotonic() < deadline
        time.sleep(0.1)
    alice = {'server': _boot(aio, image, ALICE, 'alice-srv')}
    return {'bob': bob, 'alice': alice, 'image': image}


def _absent(kind):
    return 'nokey-%s' % uuid.uuid4().hex[:8] if kind == 'keypair' else str(uuid.uuid4())


def _bdm(kind, uid):
    if kind == 'volume':
        return [{'source_type': 'volume', 'destination_type': 'volume', 'boot_index': 0,
                 'uuid': uid}]
    return [{'source_type': 'image', 'destination_type': 'volume', 'boot_index': 0,
             'uuid': uid, 'volume_size': 1}]


# (what is named, how it is asked): each a function of (world, the id) -> request.
CASES = {
    'server marker': ('server', lambda w, x: ('GET', '/servers?marker=' + x, None)),
    'server marker, detail': ('server', lambda w, x: ('GET', '/servers/detail?marker=' + x,
                                                      None)),
    'server marker, sorted by uuid': ('server', lambda w, x: (
        'GET', '/servers?sort_key=uuid&sort_dir=asc&marker=' + x, None)),
    'server uuid filter': ('server', lambda w, x: ('GET', '/servers/detail?uuid=' + x, None)),
    'server uuid filter, changes-since': ('server', lambda w, x: (
        'GET', '/servers?changes-since=2000-01-01T00:00:00Z&uuid=' + x, None)),
    'server image filter': ('image', lambda w, x: ('GET', '/servers?image=' + x, None)),
    'server show': ('server', lambda w, x: ('GET', '/servers/' + x, None)),
    'server actions': ('server', lambda w, x: ('GET', '/servers/%s/os-instance-actions' % x,
                                               None)),
    'server metadata': ('server', lambda w, x: ('GET', '/servers/%s/metadata' % x, None)),
    'server topology': ('server', lambda w, x: ('GET', '/servers/%s/topology' % x, None)),
    'server attachments': ('server', lambda w, x: (
        'GET', '/servers/%s/os-volume_attachments' % x, None)),
    'server action': ('server', lambda w, x: ('POST', '/servers/%s/action' % x,
                                              {'os-stop': None})),
    'server console': ('server', lambda w, x: ('POST', '/servers/%s/remote-consoles' % x, {
        'remote_console': {'protocol': 'vnc', 'type': 'novnc'}})),
    'server group show': ('group', lambda w, x: ('GET', '/os-server-groups/' + x, None)),
    'keypair show': ('keypair', lambda w, x: ('GET', '/os-keypairs/' + x, None)),
    'boot with key': ('keypair', lambda w, x: ('POST', '/servers', server_body(
        w['image'], name='k', key_name=x))),
    'boot in group': ('group', lambda w, x: ('POST', '/servers', dict(
        server_body(w['image'], name='g'), **{'os:scheduler_hints': {'group': x}}))),
    'boot from image': ('image', lambda w, x: ('POST', '/servers', server_body(x, name='i'))),
    'boot image to volume': ('image', lambda w, x: ('POST', '/servers', server_body(
        '', name='iv', block_device_mapping_v2=_bdm('image', x)))),
    'boot from volume': ('volume', lambda w, x: ('POST', '/servers', server_body(
        '', name='v', block_device_mapping_v2=_bdm('volume', x)))),
    'attach volume': ('volume', lambda w, x: (
        'POST', '/servers/%s/os-volume_attachments' % w['alice']['server'],
        {'volumeAttachment': {'volumeId': x}})),
    'rescue with image': ('image', lambda w, x: (
        'POST', '/servers/%s/action' % w['alice']['server'], {'rescue': {
            'rescue_image_ref': x}})),
    'rebuild with image': ('image', lambda w, x: (
        'POST', '/servers/%s/action' % w['alice']['server'], {'rebuild': {'imageRef': x}})),
    'console token': ('token', lambda w, x: ('GET', '/os-console-auth-tokens/' + x, None)),
}


@pytest.mark.parametrize('case', sorted(CASES))
def test_theirs_answers_as_absent(aio, world, case):
    kind, make = CASES[case]
    theirs = world['bob'].get(kind) or str(uuid.uuid4())
    absent = _absent(kind)
    answers = []
    for named in (theirs, absent):
        method, path, body = make(world, named)
        status, _h, resp = aio.request(method, path, body, version=V, token=ALICE)
        answers.append(_normalized((status, resp), {'named': named}))
    assert answers[0] == answers[1], '%s: theirs %r, absent %r' % (case, answers[0], answers[1])
    assert answers[0][0] >= 400 or method == 'GET', answers
    # Nothing of alice's changed and bob's server still runs.
    assert aio.request('GET', '/servers/' + world['bob']['server'],
                       token=BOB)[2]['server']['status'] == 'ACTIVE'
    assert aio.request('GET', '/servers/' + world['alice']['server'],
                       token=ALICE)[2]['server']['status'] == 'ACTIVE'

"""Personality files land on the config drive; OS-DCF:diskConfig is kept per server."""

import base64
import json
import os
import subprocess

import pytest

from nova.tests.functional import fixtures


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('personality')
    c = fixtures.RunningAio(tmp, extra={('quota', 'injected_files'): 3})
    c.image = c.upload_image(fixtures.tiny_disk(str(tmp / 'root.img')))
    c.tmp = tmp
    yield c
    c.stop()


def b64(text):
    return base64.b64encode(text.encode()).decode()


def create(cloud, version='2.56', **extra):
    server = dict({'name': 'p', 'imageRef': cloud.image, 'flavorRef': '1'}, **extra)
    if version:
        server['networks'] = 'none'
    return cloud.request('POST', '/servers', {'server': server}, version=version)


def drive_file(cloud, sid, path):
    drive = os.path.join(cloud.conf.instances_path, sid, 'disk.config')
    out = cloud.tmp / ('%s-%s' % (sid, path.replace('/', '_')))
    subprocess.run(['xorriso', '-osirrox', 'on', '-indev', drive, '-extract', path, str(out)],
                   check=True, capture_output=True)
    return out.read_bytes()


def test_files_go_to_the_config_drive(cloud):
    status, _h, body = create(cloud, config_drive=True, personality=[
        {'path': '/etc/motd', 'contents': b64('hello\n')},
        {'path': 'rel.txt', 'contents': b64('second')}])
    assert status == 202, body
    sid = body['server']['id']
    assert body['server']['OS-DCF:diskConfig'] == 'MANUAL'
    cloud.wait_for_status(sid, ['ACTIVE'])
    meta = json.loads(drive_file(cloud, sid, '/openstack/latest/meta_data.json'))
    assert meta['files'] == [{'path': '/etc/motd', 'content_path': '/content/0000'},
                             {'path': 'rel.txt', 'content_path': '/content/0001'}]
    assert drive_file(cloud, sid, '/openstack/content/0000') == b'hello\n'
    assert drive_file(cloud, sid, '/openstack/content/0001') == b'second'
    # Rebuild injects the new set.
    status, _h, body = cloud.request('POST', '/servers/%s/action' % sid, {'rebuild': {
        'imageRef': cloud.image, 'personality': [{'path': '/r', 'contents': b64('rebuilt')}],
        'OS-DCF:diskConfig': 'AUTO'}}, version='2.56')
    assert status == 202, body
    assert body['server']['OS-DCF:diskConfig'] == 'AUTO'
    cloud.wait_for_status(sid, ['ACTIVE'])
    assert drive_file(cloud, sid, '/openstack/content/0000') == b'rebuilt'


def test_bad_personality_is_refused_before_anything_exists(cloud):
    before = len(cloud.db.instance_get_all({}))
    for personality, code in (
            ([{'path': '/a', 'contents': 'not base64!'}], 400),
            ([{'path': '/a', 'contents': b64('x'), 'mode': '0644'}], 400),
            ([{'path': '/f%d' % i, 'contents': b64('x')} for i in range(4)], 403),
            ([{'path': '/' + 'p' * 300, 'contents': b64('x')}], 403),
            ([{'path': '/big', 'contents': b64('x' * 10241)}], 403)):
        status, _h, body = create(cloud, personality=personality)
        assert status == code, (personality, body)
    # Gone at 2.57.
    status, _h, body = create(cloud, version='2.57',
                              personality=[{'path': '/a', 'contents': b64('x')}])
    assert status == 400, body
    assert len(cloud.db.instance_get_all({})) == before


def test_disk_config_create_update_show(cloud):
    status, _h, body = create(cloud, version=None, **{'OS-DCF:diskConfig': 'AUTO'})
    assert status == 202, body
    sid = body['server']['id']
    assert body['server']['OS-DCF:diskConfig'] == 'AUTO'
    assert cloud.wait_for_status(sid, ['ACTIVE'])['OS-DCF:diskConfig'] == 'AUTO'
    status, _h, body = cloud.request('PUT', '/servers/' + sid, {'server': {
        'OS-DCF:diskConfig': 'MANUAL'}})
    assert status == 200 and body['server']['OS-DCF:diskConfig'] == 'MANUAL', body
    _s, _h, body = cloud.request('GET', '/servers/detail')
    assert [s['OS-DCF:diskConfig'] for s in body['servers'] if s['id'] == sid] == ['MANUAL']
    status, _h, body = create(cloud, version=None, **{'OS-DCF:diskConfig': 'SOMETIMES'})
    assert status == 400, body

"""The create hook's call replacement: one command only, and a loud error when bypassed."""

import argparse
import types

import pytest
from osc_lib import exceptions

from novaextclient.osc import hooks
from novaextclient.tests.unit import stub
from novaextclient.tests.unit.test_sdk import connect


def _hook(conn):
    command = types.SimpleNamespace(
        app=types.SimpleNamespace(client_manager=types.SimpleNamespace(compute=conn.compute)))
    return hooks.ServerCreateHook(command)


def _create(conn):
    return conn.compute.create_server(name='vm', image_id=stub.IMAGE_ID, flavor_id='1',
                                      networks='none')


def test_replacement_serves_one_call_then_the_proxy_is_itself_again(make_cloud):
    # As in openstack's interactive shell: one proxy, several commands.
    cloud = make_cloud('2.106')
    conn = connect(cloud)
    hook = _hook(conn)
    hook.before(argparse.Namespace(image_prop_override={'hw_disk_bus': 'sata'}))
    _create(conn)
    _create(conn)
    first, second = cloud.recorder.posts('/servers')
    assert first['body']['server']['image_props_override'] == {'hw_disk_bus': 'sata'}
    assert 'image_props_override' not in second['body']['server']


def test_a_failed_command_leaves_nothing_for_the_next(make_cloud):
    cloud = make_cloud('2.106')
    conn = connect(cloud)
    _hook(conn).before(argparse.Namespace(image_prop_override={'hw_disk_bus': 'sata'}))
    # That command failed before creating anything; the next one has no overrides.
    _hook(conn).before(argparse.Namespace(image_prop_override=None))
    _create(conn)
    [post] = cloud.recorder.posts('/servers')
    assert 'image_props_override' not in post['body']['server']


def test_bypassed_replacement_is_an_error(make_cloud):
    cloud = make_cloud('2.106')
    conn = connect(cloud)
    hook = _hook(conn)
    args = argparse.Namespace(image_prop_override={'hw_disk_bus': 'sata'})
    hook.before(args)
    # A client release that creates servers another way never calls ours.
    type(conn.compute).create_server(conn.compute, name='vm', image_id=stub.IMAGE_ID,
                                     flavor_id='1', networks='none')
    with pytest.raises(exceptions.CommandError, match='was NOT applied'):
        hook.after(args, ((), ()))

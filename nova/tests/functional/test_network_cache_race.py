"""network-changed during a build cannot drop the mark on the user's port: it outlives a delete."""

import copy
import threading
import time

from nova import context as nova_context
from nova.tests.functional import fixtures

ADMIN = 'admin:admin'


def test_a_refresh_racing_the_builds_save_keeps_the_users_port(tmp_path):
    running = fixtures.RunningAio(tmp_path / 'state')
    try:
        image = running.upload_image(fixtures.tiny_disk(tmp_path / 'disk.img'))
        network = running.aio.network.store.list('networks')[0]['id']
        status, _h, body = running.request('POST', '/v2.0/ports', {'port': {
            'network_id': network, 'name': 'mine'}}, url=running.network_url)
        assert status == 201, body
        port = body['port']['id']
        manager = running.aio.services[1].manager
        network_api = manager.network_api
        allocate, build = network_api.ports.allocate_for_instance, network_api.info.build
        current = manager.interfaces._current
        refreshed, read, racer = threading.Event(), threading.Event(), {}

        def current_then_signal(instance):
            instance = current(instance)
            if threading.current_thread() is racer.get('thread'):
                read.set()
            return instance

        def slow_build(*args, **kwargs):
            # The refresh read the cache first; its answer comes after the build's save.
            if threading.current_thread() is racer.get('thread'):
                time.sleep(1.0)
            return build(*args, **kwargs)

        def refresh(instance):
            ctx = nova_context.get_admin_context()
            manager.interfaces.refresh_cache(ctx, instance)
            refreshed.set()

        def allocate_then_race(context, instance, *args, **kwargs):
            # Neutron's network-changed for the bound port arrives before the save.
            info = allocate(context, instance, *args, **kwargs)
            # Its own copy of the instance, as an event's RPC message gives it.
            racer['thread'] = threading.Thread(target=refresh, args=(copy.deepcopy(instance),))
            racer['thread'].start()
            # Unguarded, the refresh reads the unsaved cache now; guarded, it waits.
            read.wait(1.0)
            return info

        network_api.info.build = slow_build
        network_api.ports.allocate_for_instance = allocate_then_race
        manager.interfaces._current = current_then_signal
        try:
            status, _h, body = running.request('POST', '/servers', {'server': {
                'name': 'race', 'imageRef': image, 'flavorRef': '1',
                'networks': [{'port': port}]}}, version='2.37')
            assert status == 202, body
            sid = body['server']['id']
            running.wait_for_status(sid, ['ACTIVE'])
            assert refreshed.wait(10)
        finally:
            del network_api.info.build
            del network_api.ports.allocate_for_instance
            del manager.interfaces._current
        [vif] = running.db.instance_get(sid)['network_info']
        assert vif['id'] == port and vif['preserve_on_delete'] is True
        running.request('DELETE', '/servers/' + sid)
        running.wait_for_status(sid, ['DELETED'])
        status, _h, body = running.request('GET', '/v2.0/ports/' + port,
                                           url=running.network_url)
        assert status == 200, body
        assert body['port']['device_id'] == '' and body['port']['device_owner'] == ''
    finally:
        running.stop()

"""Server views ask the network service for security groups only of servers that may have ports."""

import types

from nova.compute import api_networking


class _Groups:
    def __init__(self):
        self.asked = []

    def instances_security_groups(self, context, instances):
        self.asked.append([i['uuid'] for i in instances])
        return {i['uuid']: [{'name': 'default'}] for i in instances}


def _api():
    groups = _Groups()
    return api_networking.ServerNetworksAPI(types.SimpleNamespace(security_groups=groups),
                                        None), groups


def _row(uuid, network_info=(), vm_state='active', task_state=None):
    return {'uuid': uuid, 'network_info': list(network_info), 'vm_state': vm_state,
            'task_state': task_state}


def test_a_page_of_servers_without_ports_costs_no_query():
    api, groups = _api()
    assert api.security_groups_of(None, [_row('a'), _row('b', vm_state='stopped')]) == {}
    assert groups.asked == []


def test_only_servers_that_may_have_ports_are_asked_about():
    api, groups = _api()
    rows = [_row('cached', network_info=[{'id': 'port'}]), _row('bare'),
            _row('building', vm_state='building'), _row('busy', task_state='rebuilding')]
    shown = api.security_groups_of(None, rows)
    assert groups.asked == [['cached', 'building', 'busy']]
    assert set(shown) == {'cached', 'building', 'busy'}


def test_instance_objects_are_read_by_attribute():
    wired = types.SimpleNamespace(uuid='o', network_info=[{'id': 'p'}], vm_state='active',
                                  task_state=None)
    assert api_networking._may_have_ports(wired)
    assert not api_networking._may_have_ports(types.SimpleNamespace(
        uuid='q', network_info=[], vm_state='active', task_state=None))


def test_a_networkless_server_polled_through_rescue_costs_no_query():
    # Rescue, unrescue, reboot and the power tasks never add a port: the
    # polls of a networkless server through them make no Neutron query.
    api, groups = _api()
    rows = [_row(task, task_state=task) for task in
            ('rescuing', 'unrescuing', 'rebooting', 'powering-off', 'pausing', 'resuming')]
    assert api.security_groups_of(None, rows) == {}
    assert groups.asked == []


def test_a_rescuing_server_with_ports_is_still_asked_about():
    api, groups = _api()
    shown = api.security_groups_of(None, [_row('wired', network_info=[{'id': 'port'}],
                                               task_state='rescuing')])
    assert groups.asked == [['wired']] and shown == {'wired': [{'name': 'default'}]}

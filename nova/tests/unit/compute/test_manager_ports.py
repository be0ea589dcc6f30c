"""A live migration's port steps: the source activates the destination, then drops its own."""

import types

from nova import exception
from nova.compute import manager_ports


class Bindings:
    def __init__(self, fail=None):
        self.calls = []
        self.fail = fail

    def migrate_instance_start(self, context, instance, dest):
        self.calls.append(('activate', dest))
        if self.fail:
            raise self.fail
        return [vif['id'] for vif in instance.network_info]

    def delete_source_bindings(self, context, port_ids, host):
        self.calls.append(('delete', tuple(port_ids), host))


def _moves(bindings):
    core = types.SimpleNamespace(host='src', conductor_db=None)
    return manager_ports.PortMoves(core, types.SimpleNamespace(bindings=bindings))


def test_the_source_drops_its_own_bindings_of_the_ports_activated():
    bindings = Bindings()
    moves = _moves(bindings)
    instance = types.SimpleNamespace(uuid='u1', network_info=[{'id': 'p1'}, {'id': 'p2'}])
    activated = moves.activate_on(None, instance, 'dst')
    moves.drop_source(None, activated)
    assert bindings.calls == [('activate', 'dst'), ('delete', ('p1', 'p2'), 'src')]


def test_no_call_for_a_server_without_ports():
    bindings = Bindings()
    moves = _moves(bindings)
    activated = moves.activate_on(None, types.SimpleNamespace(uuid='u1', network_info=[]), 'dst')
    moves.drop_source(None, activated)
    assert (activated, bindings.calls) == ([], [])


def test_a_failed_activation_is_logged_and_keeps_the_source_bindings(caplog):
    bindings = Bindings(fail=exception.PortBindingActivationFailed(port_id='p1', host='dst'))
    moves = _moves(bindings)
    instance = types.SimpleNamespace(uuid='u1', network_info=[{'id': 'p1'}])
    moves.drop_source(None, moves.activate_on(None, instance, 'dst'))
    assert bindings.calls == [('activate', 'dst')]
    assert 'Activating the bindings of u1 on dst failed' in caplog.text

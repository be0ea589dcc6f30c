"""A live migration's port steps: the source activates the destination and drops its own."""

import types

from nova import exception
from nova.compute import manager_ports


class Bindings:
    def __init__(self, fail=None):
        self.calls = []
        self.fail = fail

    def migrate_instance_start(self, context, instance, dest, source_host=None):
        self.calls.append((dest, source_host))
        if self.fail:
            raise self.fail


def _moves(bindings):
    core = types.SimpleNamespace(host='src', conductor_db=None)
    return manager_ports.PortMoves(core, types.SimpleNamespace(bindings=bindings))


def test_activate_on_names_the_source_whose_binding_goes():
    bindings = Bindings()
    instance = types.SimpleNamespace(uuid='u1', network_info=[{'id': 'p1'}])
    _moves(bindings).activate_on(None, instance, 'dst')
    assert bindings.calls == [('dst', 'src')]


def test_activate_on_makes_no_call_for_a_server_without_ports():
    bindings = Bindings()
    _moves(bindings).activate_on(None, types.SimpleNamespace(uuid='u1', network_info=[]), 'dst')
    assert bindings.calls == []


def test_a_failed_activation_is_logged_not_raised(caplog):
    bindings = Bindings(fail=exception.PortBindingActivationFailed(port_id='p1', host='dst'))
    instance = types.SimpleNamespace(uuid='u1', network_info=[{'id': 'p1'}])
    _moves(bindings).activate_on(None, instance, 'dst')
    assert bindings.calls == [('dst', 'src')]
    assert 'Activating the bindings of u1 on dst failed' in caplog.text

"""Neutron's network-* events for a server already gone change nothing and raise nothing."""

import pytest

from nova import exception
from nova.compute import manager_core, manager_interfaces
from nova.objects import instance as instance_obj

UUID = '5d0c7e1b-3a2f-4b8e-9c61-7f2a4e0d9b13'


class GoneDB:
    """The conductor's answers once the instance row is gone."""

    def __init__(self):
        self.writes = []

    def instance_get(self, uuid):
        raise exception.InstanceNotFound(instance_id=uuid)

    def instance_update(self, uuid, values, **kwargs):
        self.writes.append(values)


class NetworkAPI:
    class info:  # noqa: N801 - the network API's attribute name
        @staticmethod
        def build(context, instance):
            raise AssertionError('nothing to rebuild for a gone server')


@pytest.mark.parametrize('name', ['network-vif-deleted', 'network-changed'])
def test_an_event_for_a_deleted_server_is_a_no_op(name):
    db = GoneDB()
    core = manager_core.ManagerCore(None, db, driver=None, host='h')
    interfaces = manager_interfaces.InterfacesManager(core, NetworkAPI(), None)
    instance = instance_obj.Instance(uuid=UUID, network_info=[])
    assert interfaces.handle_event(None, instance, {'name': name, 'tag': 'port-1'}) is None
    assert db.writes == []

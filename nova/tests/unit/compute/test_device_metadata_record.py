"""The compute host's record of tagged devices: the driver is asked only when a tag exists."""

from nova.compute import manager_core
from nova.objects import instance as instance_obj


class ConductorDB:
    def __init__(self, bdms):
        self.bdms, self.updates, self.bdm_reads = bdms, [], 0

    def bdm_get_by_instance(self, uuid):
        self.bdm_reads += 1
        return [dict(b) for b in self.bdms]

    def instance_update(self, uuid, values, **kwargs):
        self.updates.append(values)


class Driver:
    def __init__(self, devices):
        self.devices, self.calls = devices, []

    def get_device_metadata(self, instance, bdms):
        self.calls.append([b.get('tag') for b in bdms])
        return self.devices


def _core(bdms, devices=()):
    db, driver = ConductorDB(bdms), Driver(list(devices))
    return manager_core.ManagerCore(None, db, driver, 'host'), db, driver


def _instance(network_info=(), recorded=()):
    return instance_obj.Instance(uuid='0e7d1c2a-5b9f-4c3e-8a61-2f4b7d9e1a03',
                                 network_info=list(network_info),
                                 device_metadata=list(recorded))


def test_nothing_tagged_and_nothing_recorded_reads_no_domain():
    core, db, driver = _core([{'tag': None}])
    core.record_device_metadata(_instance(
        [{'id': 'p', 'meta': {}, 'details': {'port_filter': True}}]))
    assert driver.calls == [] and db.updates == [] and db.bdm_reads == 1
    # The build passes the rows it has just read: no read at all.
    core.record_device_metadata(_instance(), bdms=[{'tag': None}])
    assert db.bdm_reads == 1 and driver.calls == []


def test_a_tag_anywhere_records_what_the_driver_reads():
    disk = {'type': 'disk', 'tags': ['db']}
    core, db, driver = _core([{'tag': 'db'}], [disk])
    inst = _instance()
    core.record_device_metadata(inst, bdms=[{'tag': 'db'}])
    # Read again: the passed rows may predate the device names the build chose.
    assert db.bdm_reads == 1 and driver.calls == [['db']]
    assert db.updates == [{'device_metadata': [disk]}] and inst.device_metadata == [disk]
    core, db, driver = _core([], [{'type': 'nic'}])
    core.record_device_metadata(_instance([{'id': 'p', 'meta': {},
                                            'details': {'vlan': '7'}}]))
    assert db.updates == [{'device_metadata': [{'type': 'nic'}]}]


def test_a_recorded_list_is_cleared_when_the_last_tagged_device_goes():
    core, db, driver = _core([{'tag': None}], [])
    core.record_device_metadata(_instance(recorded=[{'type': 'disk', 'tags': ['old']}]))
    assert driver.calls == [[None]] and db.updates == [{'device_metadata': []}]


def test_a_failing_read_fails_nothing():
    core, db, driver = _core([{'tag': 'x'}])
    driver.get_device_metadata = lambda instance, bdms: 1 / 0
    core.record_device_metadata(_instance())
    assert db.updates == []

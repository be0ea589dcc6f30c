"""The NUMA record read back from the guest XML the driver writes, and the topology view."""

from nova.api.views import servers as views
from nova.tests.fixtures import libvirt as fx
from nova.tests.unit.virt.libvirt import test_guestfeatures as tg
from nova.virt.libvirt import config_base, numa_record
from nova.virt.libvirt import guestfeatures as gf


def _record(vcpus, memory_mb, specs=None, host=None, dedicated=False, **image):
    flavor = fx.make_flavor(vcpus=vcpus, memory_mb=memory_mb, extra_specs=specs or {})
    guest = tg.make_guest(vcpus, memory_mb)
    gf.apply(guest, tg.SETTINGS, fx.make_instance(flavor=flavor),
             fx.make_image_meta(**image), host)
    return numa_record.from_domain_xml(config_base.to_text(guest.format_dom()), dedicated)


def test_no_numa_cells_no_record():
    assert _record(2, 1024) is None


def test_guest_cells_without_host_facts_have_no_host_node():
    record = _record(4, 2048, {'hw:numa_nodes': '2'})
    assert record == {'pagesize_kb': None, 'cells': [
        {'id': 0, 'host_node': None, 'memory_mb': 1024, 'vcpus': [0, 1], 'cpu_pinning': {},
         'siblings': []},
        {'id': 1, 'host_node': None, 'memory_mb': 1024, 'vcpus': [2, 3], 'cpu_pinning': {},
         'siblings': []}]}


def test_shared_cells_on_a_numa_host_name_their_host_node_but_pin_nothing():
    record = _record(4, 2048, {'hw:numa_nodes': '2'}, host=tg.SMT_HOST)
    assert [(c['host_node'], c['cpu_pinning']) for c in record['cells']] == [(0, {}), (1, {})]


def test_dedicated_threads_and_huge_pages():
    record = _record(4, 2048, {'hw:cpu_policy': 'dedicated', 'hw:mem_page_size': '2048'},
                     host=tg.SMT_HOST, dedicated=True, hw_cpu_thread_policy='require',
                     hw_numa_nodes='2')
    assert record['pagesize_kb'] == 2048
    assert record['cells'] == [
        {'id': 0, 'host_node': 0, 'memory_mb': 1024, 'vcpus': [0, 1],
         'cpu_pinning': {'0': 0, '1': 4}, 'siblings': [[0, 1]]},
        {'id': 1, 'host_node': 1, 'memory_mb': 1024, 'vcpus': [2, 3],
         'cpu_pinning': {'2': 2, '3': 6}, 'siblings': [[2, 3]]}]
    # The owner sees the guest's side; an admin the host's too, as upstream.
    assert views.topology(record, with_host=False) == {'pagesize_kb': 2048, 'nodes': [
        {'vcpu_set': [0, 1], 'siblings': [[0, 1]], 'memory_mb': 1024},
        {'vcpu_set': [2, 3], 'siblings': [[2, 3]], 'memory_mb': 1024}]}
    assert views.topology(record, with_host=True)['nodes'][1] == {
        'vcpu_set': [2, 3], 'siblings': [[2, 3]], 'memory_mb': 1024, 'host_node': 1,
        'cpu_pinning': {'2': 2, '3': 6}}


def test_no_record_is_no_nodes():
    assert views.topology(None, with_host=True) == {'nodes': [], 'pagesize_kb': None}

"""The guest's NICs: interface XML from network info, plugs, events and hot-plug on test:///default."""

import copy
import threading
import time

import pytest

from nova import exception
from nova.network import model
from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.tests.unit.virt.libvirt.test_config import assert_xml
from nova.virt import instance_events
from nova.virt.libvirt import config, driver_rescue, vif

PORT = '6f70b4c2-1234-4b7e-9d0e-0a0b0c0d0e0f'


def ovn_vif(port_id=PORT, mac='fa:16:3e:11:22:33', active=False, **details):
    """A port ML2/OVN bound on the userspace datapath, as info.py caches it."""
    return model.vif(
        port_id, address=mac, type='ovs', devname=model.devname(port_id),
        ovs_interfaceid=port_id, active=active, delegate_create=True,
        details=dict({'port_filter': True, 'datapath_type': 'netdev',
                      'bridge_name': 'br-int', 'ovs_create_tap': True}, **details),
        network=model.network(id='net-1', bridge='br-int', label='private', mtu=1442))


def tap_vif(port_id=PORT, mac='fa:16:3e:11:22:33', active=True):
    """A port of the all-in-one's network (vif_type tap)."""
    return model.vif(
        port_id, address=mac, type='tap', devname=model.devname(port_id), active=active,
        details={'port_filter': True, 'connectivity': 'l2', 'bridge_name': 'br-aio',
                 'mac_address': 'fe' + mac[2:]},
        network=model.network(id='net-2', label='private', mtu=1500))


# ------------------------------------------------------------ decisions

def test_ovn_port_is_a_pre_made_tap_with_checksum_offload_off():
    assert_xml(vif.interface_config(ovn_vif()), """
        <interface type="ethernet">
          <mac address="fa:16:3e:11:22:33"/>
          <target dev="tap6f70b4c2-12" managed="no"/>
          <model type="virtio"/>
          <driver name="qemu"><host csum="off"/></driver>
          <mtu size="1442"/>
        </interface>""")


def test_kernel_datapath_keeps_offload():
    nic = vif.interface_config(ovn_vif(datapath_type='system'))
    assert nic.host_csum is None and nic.driver_name is None
    assert nic.type == 'ethernet'


def test_ovs_without_create_tap_is_a_bridge_with_an_openvswitch_virtualport():
    assert_xml(vif.interface_config(ovn_vif(ovs_create_tap=False)), """
        <interface type="bridge">
          <mac address="fa:16:3e:11:22:33"/>
          <source bridge="br-int"/>
          <virtualport type="openvswitch">
            <parameters interfaceid="%s"/>
          </virtualport>
          <target dev="tap6f70b4c2-12"/>
          <model type="virtio"/>
          <mtu size="1442"/>
        </interface>""" % PORT)


def test_tap_port_and_emulated_model():
    assert_xml(vif.interface_config(tap_vif(), 'e1000'), """
        <interface type="ethernet">
          <mac address="fa:16:3e:11:22:33"/>
          <target dev="tap6f70b4c2-12" managed="no"/>
          <model type="e1000"/>
          <mtu size="1500"/>
        </interface>""")


def test_queues_and_queue_sizes_only_for_virtio():
    settings = vif.NicSettings(rx_queue_size=512, tx_queue_size=1024)
    assert_xml(vif.interface_config(tap_vif(), 'virtio', 4, settings), """
        <interface type="ethernet">
          <mac address="fa:16:3e:11:22:33"/>
          <target dev="tap6f70b4c2-12" managed="no"/>
          <model type="virtio"/>
          <driver queues="4" rx_queue_size="512" tx_queue_size="1024"/>
          <mtu size="1500"/>
        </interface>""")
    nic = vif.interface_config(tap_vif(), 'rtl8139', 4, settings)
    assert (nic.driver_queues, nic.rx_queue_size) == (None, None)


def test_vhostuser_socket():
    port = model.vif(PORT, address='fa:16:3e:11:22:33', type='vhostuser',
                     details={'vhostuser_socket': '/run/vhu0', 'vhostuser_mode': 'server',
                              'vhostuser_ovs_plug': True},
                     network=model.network(id='n', subnets=(), mtu=1500))
    assert_xml(vif.interface_config(port), """
        <interface type="vhostuser">
          <mac address="fa:16:3e:11:22:33"/>
          <source type="unix" path="/run/vhu0" mode="server"/>
          <model type="virtio"/>
          <mtu size="1500"/>
        </interface>""")


@pytest.mark.parametrize('vif_type', ['binding_failed', 'unbound', None])
def test_an_unbound_port_is_refused(vif_type):
    port = dict(ovn_vif(), type=vif_type)
    with pytest.raises(exception.PortBindingFailed):
        vif.interface_config(port)


def test_an_unknown_vif_type_is_refused():
    with pytest.raises(exception.NovaException, match='Unsupported VIF type macvtap'):
        vif.interface_config(dict(ovn_vif(), type='macvtap'))


def test_model_from_the_image_and_refused_models():
    assert vif.nic_model({}) == 'virtio'
    assert vif.nic_model({'hw_vif_model': 'e1000e'}) == 'e1000e'
    assert vif.nic_model({'hw_vif_model': 'spapr_vlan'}) == 'spapr-vlan'
    with pytest.raises(exception.Invalid, match='hw_vif_model xen is not'):
        vif.nic_model({'hw_vif_model': 'xen'})


def test_queues_follow_vcpus_flavor_first_and_the_cap():
    assert vif.nic_queues('virtio', {'hw_vif_multiqueue_enabled': True}, {}, 4) == 4
    assert vif.nic_queues('virtio', {'hw_vif_multiqueue_enabled': True},
                          {'hw:vif_multiqueue_enabled': 'false'}, 4) is None
    assert vif.nic_queues('virtio', {}, {'hw:vif_multiqueue_enabled': 'true'}, 8, 2) == 2
    assert vif.nic_queues('virtio', {'hw_vif_multiqueue_enabled': True}, {}, 1) is None
    assert vif.nic_queues('e1000', {'hw_vif_multiqueue_enabled': True}, {}, 4) is None


def test_interface_round_trips_through_parse():
    nic = vif.interface_config(ovn_vif(), queues=2)
    nic.address = config.GuestDeviceAddressPCI(domain=0, bus=0, slot=3, function=0)
    again = config.GuestInterface.from_xml(nic.to_xml())
    assert again.to_xml() == nic.to_xml()
    assert (again.target_managed, again.host_csum, again.driver_queues) == (False, False, 2)


# --------------------------------------------------------------- events

def test_waiter_gets_its_events_and_ignores_others():
    events = instance_events.InstanceEvents()
    waiter = events.prepare('u1', [('network-vif-plugged', 'p1'),
                                   ('network-vif-plugged', 'p2')])
    assert not events.deliver('u2', 'network-vif-plugged', 'p1')
    assert events.deliver('u1', 'network-vif-plugged', 'p1')
    threading.Timer(0.05, events.deliver, ('u1', 'network-vif-plugged', 'p2',
                                           'failed')).start()
    assert waiter.wait(5) == set()
    assert waiter.failed == {('network-vif-plugged', 'p2')}
    # Forgotten once it waited: a late event finds nobody.
    assert not events.deliver('u1', 'network-vif-plugged', 'p2')


def test_waiter_times_out_with_what_is_missing():
    events = instance_events.InstanceEvents()
    waiter = events.prepare('u1', [('network-vif-plugged', 'p1')])
    started = time.monotonic()
    assert waiter.wait(0.1) == {('network-vif-plugged', 'p1')}
    assert time.monotonic() - started < 2


# ------------------------------------------------------ the driver, test:///

@pytest.fixture
def drv(tmp_path):
    from nova.virt.libvirt import driver as libvirt_driver
    conf = fx.make_conf(tmp_path / 'state')
    conf.set_override('vif_plugging_timeout', 2)
    image = bootimg.write_boot_image(str(tmp_path / 'root.raw'), 'ROOT')
    drv = libvirt_driver.LibvirtDriver(conf, fx.file_fetcher({'image-1': image}),
                                       soft_reboot_wait=0.2, shutdown_poll_interval=0.01)
    drv.init_host('testhost')
    yield drv
    drv.cleanup_host('testhost')


def _nics(drv, instance, inactive=False):
    xml = drv.host.get_guest(instance.uuid).get_xml_desc(inactive=inactive)
    return config.GuestDomain.from_xml(xml).get_devices(config.GuestInterface)


def test_spawn_puts_each_port_in_the_domain_in_network_info_order(drv):
    second = '0e0d0c0b-5678-4b7e-9d0e-0f0e0d0c0b0a'
    network_info = [ovn_vif(active=True), tap_vif(second, 'fa:16:3e:44:55:66')]
    instance = fx.make_instance(network_info=network_info)
    drv.spawn(None, instance, fx.make_image_meta(hw_vif_model='e1000e'), [], None, {},
              network_info=network_info)
    try:
        nics = _nics(drv, instance)
        assert [(n.mac_addr, n.target_dev, n.model) for n in nics] == [
            ('fa:16:3e:11:22:33', 'tap6f70b4c2-12', 'e1000e'),
            ('fa:16:3e:44:55:66', 'tap0e0d0c0b-56', 'e1000e')]
        assert all(n.type == 'ethernet' and n.target_managed is False for n in nics)
    finally:
        drv.destroy(None, instance)


def test_flavor_vif_quotas_become_the_nics_bandwidth(drv):
    specs = {'quota:vif_inbound_average': '1000', 'quota:vif_inbound_peak': '2000',
             'quota:vif_inbound_burst': '500', 'quota:vif_outbound_average': '800',
             'quota:vif_outbound_burst': '100', 'hw:cpu_policy': 'shared'}
    assert vif.nic_bandwidth(specs) == {
        'inbound': {'average': 1000, 'peak': 2000, 'burst': 500},
        'outbound': {'average': 800, 'burst': 100}}
    # A direction without its average is not written (as upstream), nor are zeros.
    assert vif.nic_bandwidth({'quota:vif_inbound_peak': '10'}) is None
    assert vif.nic_bandwidth({'quota:vif_outbound_average': '0'}) is None
    nic = vif.interface_config(ovn_vif())
    nic.bandwidth = vif.nic_bandwidth(specs)
    assert_xml(nic, """
        <interface type="ethernet">
          <mac address="fa:16:3e:11:22:33"/>
          <target dev="tap6f70b4c2-12" managed="no"/>
          <model type="virtio"/>
          <driver name="qemu"><host csum="off"/></driver>
          <bandwidth>
            <inbound average="1000" peak="2000" burst="500"/>
            <outbound average="800" burst="100"/>
          </bandwidth>
          <mtu size="1442"/>
        </interface>""")
    parsed = config.GuestInterface.from_xml(nic.to_xml())
    assert parsed.bandwidth == nic.bandwidth and parsed.to_xml() == nic.to_xml()
    # Through the driver: the spawned domain carries it.
    network_info = [tap_vif()]
    instance = fx.make_instance(network_info=network_info,
                                flavor=fx.make_flavor(extra_specs=specs))
    drv.spawn(None, instance, fx.make_image_meta(), [], None, {})
    try:
        [spawned] = _nics(drv, instance)
        assert spawned.bandwidth == nic.bandwidth
    finally:
        drv.destroy(None, instance)


def test_the_domain_metadata_lists_each_port_and_its_fixed_ips(drv):
    from xml.etree import ElementTree as etree
    first = ovn_vif(active=True)
    first['network']['subnets'] = [
        model.subnet('10.0.0.0/24', ips=[model.fixed_ip('10.0.0.5')]),
        model.subnet('fd00::/64', ips=[model.fixed_ip('fd00::5')])]
    second = tap_vif('0e0d0c0b-5678-4b7e-9d0e-0f0e0d0c0b0a', 'fa:16:3e:44:55:66')
    instance = fx.make_instance(network_info=[first, second])
    drv.spawn(None, instance, fx.make_image_meta(), [], None, {})
    try:
        root = etree.fromstring(drv.host.get_guest(instance.uuid).get_xml_desc())
        ns = {'nova': 'http://openstack.org/xmlns/libvirt/nova/1.1'}
        ports = root.find('metadata/nova:instance/nova:ports', ns)
        assert [(p.get('uuid'), [(ip.get('type'), ip.get('address'), ip.get('ipVersion'))
                                 for ip in p.findall('nova:ip', ns)])
                for p in ports.findall('nova:port', ns)] == [
            (PORT, [('fixed', '10.0.0.5', '4'), ('fixed', 'fd00::5', '6')]),
            ('0e0d0c0b-5678-4b7e-9d0e-0f0e0d0c0b0a', [])]
    finally:
        drv.destroy(None, instance)


def test_a_new_guest_waits_paused_for_network_vif_plugged(drv):
    network_info = [ovn_vif(active=False)]
    instance = fx.make_instance(network_info=network_info)
    seen = {}

    def plug_later():
        # The guest exists and is paused while nobody has said the port is wired
        # (a loaded machine can take seconds to get the spawn that far).
        # Defined and not yet started is neither: wait for it to be started.
        from nova import power_state
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                seen['state'] = drv.get_info(instance).state
                if seen['state'] in (power_state.PAUSED, power_state.RUNNING):
                    break
            except exception.InstanceNotFound:
                pass
            time.sleep(0.02)
        drv.instance_events.deliver(instance.uuid, 'network-vif-plugged', PORT)
    threading.Thread(target=plug_later).start()
    drv.spawn(None, instance, fx.make_image_meta(), [], None, {}, network_info=network_info)
    try:
        from nova import power_state
        assert seen['state'] == power_state.PAUSED
        assert drv.get_info(instance).state == power_state.RUNNING
    finally:
        drv.destroy(None, instance)


def test_no_event_in_time_fails_the_spawn_and_leaves_no_domain(drv):
    network_info = [ovn_vif(active=False)]
    instance = fx.make_instance(network_info=network_info)
    drv.core.conf.set_override('vif_plugging_timeout', 1)
    with pytest.raises(exception.VirtualInterfacePlugTimeout, match=PORT):
        drv.spawn(None, instance, fx.make_image_meta(), [], None, {},
                  network_info=network_info)
    assert instance.uuid not in drv.list_instance_uuids()


def test_a_failed_event_fails_the_spawn(drv):
    network_info = [ovn_vif(active=False)]
    instance = fx.make_instance(network_info=network_info)
    threading.Timer(0.3, drv.instance_events.deliver,
                    (instance.uuid, 'network-vif-plugged', PORT, 'failed')).start()
    with pytest.raises(exception.VirtualInterfacePlugFailed):
        drv.spawn(None, instance, fx.make_image_meta(), [], None, {},
                  network_info=network_info)
    assert instance.uuid not in drv.list_instance_uuids()


def test_not_fatal_starts_anyway(drv):
    drv.core.conf.set_override('vif_plugging_timeout', 1)
    drv.core.conf.set_override('vif_plugging_is_fatal', False)
    network_info = [ovn_vif(active=False)]
    instance = fx.make_instance(network_info=network_info)
    drv.spawn(None, instance, fx.make_image_meta(), [], None, {}, network_info=network_info)
    try:
        from nova import power_state
        assert drv.get_info(instance).state == power_state.RUNNING
    finally:
        drv.destroy(None, instance)


def test_active_ports_and_a_zero_timeout_do_not_wait(drv):
    drv.core.conf.set_override('vif_plugging_timeout', 0)
    assert drv.vifs.plug_wait([ovn_vif(active=False)]).events == ()
    drv.core.conf.set_override('vif_plugging_timeout', 300)
    assert drv.vifs.plug_wait([ovn_vif(active=True)]).events == ()
    assert drv.vifs.plug_wait([ovn_vif(active=False)]).events == (
        ('network-vif-plugged', PORT),)


def test_rescue_keeps_the_nics_mac_and_pci_address(drv, tmp_path):
    network_info = [ovn_vif(active=True)]
    instance = fx.make_instance(network_info=network_info)
    drv.spawn(None, instance, fx.make_image_meta(), [], None, {}, network_info=network_info)
    try:
        (before,) = _nics(drv, instance, inactive=True)
        drv.rescue(None, instance, network_info, fx.make_image_meta(), None)
        (rescued,) = _nics(drv, instance, inactive=True)
        assert rescued.to_xml() == before.to_xml()
        drv.unrescue(None, instance, network_info)
        (after,) = _nics(drv, instance, inactive=True)
        assert after.to_xml() == before.to_xml()
    finally:
        drv.destroy(None, instance)


def test_stable_rescue_boot_orders_of_a_driver_nic_never_collide():
    guest = config.GuestDomain(virt_type='qemu', name='g', uuid='u', memory_kib=1,
                               vcpus=1, os=config.GuestOS(type='hvm'))
    nic = vif.interface_config(ovn_vif())
    nic.boot_order = 2
    root = config.GuestDisk(source_type='file', source_device='disk', source_path='/d',
                            target_dev='vda', target_bus='virtio', boot_order=1)
    guest.devices = [root, nic]
    rescue = config.GuestDisk(source_type='file', source_device='disk', source_path='/r',
                              target_dev='sda', target_bus='usb', boot_order=1)
    domain = driver_rescue.apply_stable_rescue(copy.deepcopy(guest), rescue)
    orders = [d.boot_order for d in domain.devices if d.boot_order is not None]
    assert sorted(orders) == [1, 2, 3] and len(set(orders)) == len(orders)


def test_hot_plug_and_unplug_a_nic(drv):
    instance = fx.make_instance(network_info=[])
    drv.spawn(None, instance, fx.make_image_meta(), [], None, {}, network_info=[])
    try:
        port = tap_vif()
        try:
            drv.attach_interface(None, instance, fx.make_image_meta(), port)
        except exception.HypervisorError as exc:
            pytest.skip("this libvirt's test driver cannot hot-plug a NIC: %s" % exc)
        assert [n.mac_addr for n in _nics(drv, instance, inactive=True)] == [
            port['address']]
        drv.detach_interface(None, instance, port)
        assert _nics(drv, instance, inactive=True) == []
        assert _nics(drv, instance) == []
    finally:
        drv.destroy(None, instance)

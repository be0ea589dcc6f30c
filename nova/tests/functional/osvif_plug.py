"""Plug or unplug one VIF with os-vif's ovs plugin as nova-compute does (run by Neutron's venv).

    python osvif_plug.py plug|unplug JSON

JSON holds port_id, mac, tap, network_id, mtu, instance_uuid, project_id, ovsdb (the
ovsdb connection), privsep_helper ([vif_plug_ovs_privileged] helper_command) and the
binding's vif_details (datapath_type, ovs_create_tap, bridge_name). The objects are built
the way upstream Nova's os_vif_util builds them for a vif_type=ovs port of ML2/OVN.
nova's own virtualenv does not install os-vif: the test environment's does
(tools/neutron.sh), so the tests run this file with that interpreter.
"""

import json
import sys
import tempfile


def _objects(spec):
    from os_vif import objects
    details = spec['vif_details']
    network = objects.network.Network(
        id=spec['network_id'], bridge=details.get('bridge_name', 'br-int'),
        subnets=objects.subnet.SubnetList(objects=[]), mtu=spec['mtu'])
    profile = objects.vif.VIFPortProfileOpenVSwitch(
        interface_id=spec['port_id'], datapath_type=details.get('datapath_type'),
        create_tap=bool(details.get('ovs_create_tap', False)), create_port=True)
    vif = objects.vif.VIFOpenVSwitch(
        id=spec['port_id'], address=spec['mac'], network=network, vif_name=spec['tap'],
        bridge_name=network.bridge, port_profile=profile, plugin='ovs',
        has_traffic_filtering=bool(details.get('port_filter')), preserve_on_delete=False,
        active=False)
    instance = objects.instance_info.InstanceInfo(
        uuid=spec['instance_uuid'], name='instance-' + spec['instance_uuid'][:8],
        project_id=spec['project_id'])
    return vif, instance


def main(argv):
    action, spec = argv[1], json.loads(argv[2])
    import os_vif
    from oslo_config import cfg
    # The plugin reads its options when os_vif.initialize() loads it: they come from a
    # configuration file, as in nova-compute. os-vif's privileged calls run in a privsep
    # daemon; helper_command starts it in the hypervisor namespace, so the tap is created
    # (and deleted) there.
    with tempfile.NamedTemporaryFile('w', suffix='.conf') as conf:
        conf.write('[os_vif_ovs]\novsdb_connection = %s\novsdb_interface = native\n'
                   '[vif_plug_ovs_privileged]\nhelper_command = %s\n'
                   % (spec['ovsdb'], spec['privsep_helper']))
        conf.flush()
        cfg.CONF(['--config-file', conf.name], project='osvif_plug')
        os_vif.initialize()
    vif, instance = _objects(spec)
    if action == 'plug':
        os_vif.plug(vif, instance)
    elif action == 'unplug':
        os_vif.unplug(vif, instance)
    else:
        sys.exit('action must be plug or unplug')
    print(json.dumps({'done': action}))


if __name__ == '__main__':
    main(sys.argv)

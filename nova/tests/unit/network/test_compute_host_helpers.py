"""The compute host's helpers: which plug events to wait for, the heal walk, NUMA affinity."""

from nova import conf as nova_conf
from nova import exception
from nova.network import heal, physnets, vif_events


def _conf(**defaults):
    conf = nova_conf.new_config()
    for name, value in defaults.items():
        group = None
        if '.' in name:
            group, name = name.split('.')
        conf.set_override(name, value, group=group)
    return conf


NW = [{'id': 'p1', 'active': False, 'vnic_type': 'normal'},
      {'id': 'p2', 'active': True, 'vnic_type': 'normal'},
      {'id': 'p3', 'active': False, 'vnic_type': 'remote-managed'}]


def test_defaults_are_upstreams():
    conf = nova_conf.new_config()
    assert (conf.vif_plugging_timeout, conf.vif_plugging_is_fatal) == (300, True)
    assert conf.network_allocate_retries == 0
    assert conf.heal_instance_info_cache_interval == 60
    assert conf.neutron.ovs_bridge == 'br-int'
    assert conf.neutron.default_floating_pool == 'nova'
    assert conf.neutron.extension_sync_interval == 600
    assert conf.neutron.http_retries == 3
    assert conf.neutron.service_metadata_proxy is False
    assert conf.neutron.metadata_proxy_shared_secret == ''


def test_waits_for_inactive_vifs_of_kvm_and_qemu_guests():
    wait = vif_events.PlugWait.for_start(_conf(), NW, 'qemu')
    assert wait.events == (('network-vif-plugged', 'p1'),)
    assert (wait.timeout, wait.fatal) == (300, True)
    assert vif_events.PlugWait.for_start(_conf(), NW, 'kvm').events == wait.events


def test_no_wait_when_off_not_powering_on_or_another_hypervisor():
    assert vif_events.PlugWait.for_start(_conf(vif_plugging_timeout=0), NW, 'qemu').events == ()
    assert vif_events.PlugWait.for_start(_conf(), NW, 'qemu', power_on=False).events == ()
    assert vif_events.PlugWait.for_start(_conf(), NW, 'lxc').events == ()
    assert not vif_events.PlugWait.for_start(_conf(vif_plugging_is_fatal=False), NW,
                                             'qemu').fatal


class _Info:
    """Stands in for NetworkInfoBuilder: records which server it rebuilt."""

    def __init__(self, fail=()):
        self.built, self.fail = [], set(fail)

    def build(self, context, instance):
        if instance['uuid'] in self.fail:
            raise exception.NetworkServiceError(reason='down')
        self.built.append(instance['uuid'])
        return [{'id': 'port-of-' + instance['uuid']}]


def test_heal_walks_the_servers_in_turn():
    info = _Info()
    healer = heal.InfoCacheHealer(_conf(), info)
    servers = [{'uuid': 'a'}, {'uuid': 'b'}, {'uuid': 'c'}]
    got = [healer.heal_next(None, servers)[0]['uuid'] for _ in range(4)]
    assert got == ['a', 'b', 'c', 'a']
    # A deleted server drops out of the walk.
    assert healer.heal_next(None, servers[2:])[0]['uuid'] == 'c'
    assert healer.heal_next(None, []) is None
    assert heal.InfoCacheHealer(_conf(heal_instance_info_cache_interval=-1), info).interval == 0


def test_heal_survives_neutron_down():
    healer = heal.InfoCacheHealer(_conf(), _Info(fail={'a'}))
    assert healer.heal_next(None, [{'uuid': 'a'}]) is None


def test_physnet_numa_affinity(tmp_path):
    path = tmp_path / 'nova.conf'
    path.write_text('[neutron]\nphysnets = foo, bar\n[neutron_physnet_foo]\nnuma_nodes = 0\n'
                    '[neutron_physnet_bar]\nnuma_nodes = 0, 1\n[neutron_tunnel]\n'
                    'numa_nodes = 1\n')
    conf = nova_conf.new_config(['--config-file', str(path)])
    assert physnets.numa_affinity(conf) == ({'foo': {0}, 'bar': {0, 1}}, {1})
    vif = {'network': {'meta': {'physical_network': 'bar', 'tunneled': False}}}
    assert physnets.vif_numa_nodes(conf, vif) == {0, 1}
    assert physnets.vif_numa_nodes(conf, {'network': {'meta': {'tunneled': True}}}) == {1}
    assert physnets.vif_numa_nodes(conf, {'network': {'meta': {}}}) is None

"""The all-in-one on the real Neutron of tools/neutron.sh, as a project member drives it."""

import contextlib

import pytest

from nova.tests.fixtures import kernelguest, sshguest
from nova.tests.functional import fixtures, keystone, neutron_env

NETWORK = {'service_type': 'network', 'interface': 'public'}
COMPUTE_PORT = 8774      # the catalog's compute endpoint: where Neutron sends events


def _os_vif(hv):
    """os-vif's options (global oslo.config, as in nova-compute) for this hypervisor."""
    import os_vif
    import vif_plug_ovs.privsep  # noqa: F401 - registers [vif_plug_ovs_privileged]
    from oslo_config import cfg
    from vif_plug_ovs import ovs
    # The plugin reads its options when it loads: set them first.
    cfg.CONF.register_opts(ovs.OvsPlugin.CONFIG_OPTS, group='os_vif_ovs')
    cfg.CONF.set_override('ovsdb_connection', hv['ovsdb'], group='os_vif_ovs')
    cfg.CONF.set_override('ovsdb_interface', 'native', group='os_vif_ovs')
    cfg.CONF.set_override('helper_command', hv['privsep_helper'],
                          group='vif_plug_ovs_privileged')
    os_vif.initialize(reset=True)


@contextlib.contextmanager
def guest_stack(state_dir, prefix):
    """A RunningAio in keystone mode whose compute host is the first chassis (its
    libvirtd the hypervisor namespace's, os-vif's ovsdb and privsep helper there),
    with a project member (``.creds``, ``.user``) and the SSH guest image (``.image``).

    ``.created`` collects (kind, id) of the Neutron resources to remove at the end
    (kind 'router_interface': (router, subnet)). Skips (pytest.skip) without
    Keystone, the test Neutron or the guest's kernel.
    """
    keystone.require_keystone()
    env = neutron_env.require_neutron()
    try:
        sshguest.check_cache()
    except kernelguest.KernelUnavailable as exc:
        pytest.skip(str(exc))
    hv = neutron_env.hypervisor(env, 1)
    _os_vif(hv)
    admin = keystone.admin_session()
    creds = keystone.make_credentials(admin, prefix=prefix)
    extra = {('api', 'auth_strategy'): 'keystone', ('DEFAULT', 'host'): hv['host'],
             ('aio', 'compute_port'): COMPUTE_PORT,
             ('libvirt', 'connection_uri'): hv['libvirt_uri'],
             ('libvirt', 'virt_type'): 'qemu',
             ('DEFAULT', 'metadata_listen_port'): int(env['NOVA_NEUTRON_METADATA_PORT']),
             ('neutron', 'endpoint_override'): env['NOVA_NEUTRON_URL'],
             ('neutron', 'service_metadata_proxy'): True,
             ('neutron', 'metadata_proxy_shared_secret'): env['NOVA_NEUTRON_METADATA_SECRET']}
    extra.update(keystone.authtoken_options())
    # The service user (admin in the service project) binds the ports, as nova's.
    extra[('neutron', 'auth_section')] = 'keystone_authtoken'
    try:
        running = fixtures.RunningAio(state_dir, extra=extra)
    except OSError as exc:
        keystone.delete_credentials(admin, creds)
        pytest.skip('the compute API cannot listen on 127.0.0.1:%d, where Neutron sends '
                    'events: %s' % (COMPUTE_PORT, exc))
    running.env, running.hv, running.admin, running.creds = env, hv, admin, creds
    running.user = creds.session()
    running.created = []
    try:
        running.image = running.upload_image(sshguest.cached_disk_image(), name='ssh-guest',
                                             token=creds.token)
        yield running
    finally:
        running.stop()
        for kind, ident in reversed(running.created):
            if kind == 'router_interface':
                router, subnet = ident
                running.user.put('/v2.0/routers/%s/remove_router_interface' % router,
                                 endpoint_filter=NETWORK, json={'subnet_id': subnet},
                                 raise_exc=False)
            else:
                running.user.delete('/v2.0/%s/%s' % (kind, ident), endpoint_filter=NETWORK,
                                    raise_exc=False)
        keystone.delete_credentials(admin, creds)


def net(stack, method, path, **kwargs):
    """A Neutron API call as the project member: its decoded JSON, or None."""
    resp = stack.user.request('/v2.0' + path, method, endpoint_filter=NETWORK, **kwargs)
    return resp.json() if resp.text else None


def project_ports(stack):
    """The project's ports but its router's and OVN's own (DHCP/metadata)."""
    ports = stack.admin.get('/v2.0/ports?project_id=' + stack.creds.project_id,
                            endpoint_filter=NETWORK).json()['ports']
    return [p for p in ports if not p['device_owner'].startswith('network:')]

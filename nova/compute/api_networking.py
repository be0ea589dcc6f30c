"""Compute API: a create's networks and security groups, and the network actions on a server."""

import dataclasses
import logging

from nova import exception
from nova import vm_states as vs
from nova.network import model
from nova.network import requests as net_requests

LOG = logging.getLogger(__name__)

DEFAULT_GROUP = 'default'
# The event a host answers by reading the server's ports again (its info cache).
NETWORK_CHANGED = 'network-changed'


@dataclasses.dataclass(frozen=True)
class CreateNetworks:
    """What a checked create hands the build: the request spec's two network keys, and
    ``max_count`` lowered to what the port quota leaves room for."""

    requested_networks: object       # RequestedNetworks.to_primitive(): None, 'auto', ...
    security_groups: list
    max_count: int


class ServerNetworksAPI:
    """Networks and security groups of a create (before the 202), and the actions
    addSecurityGroup/removeSecurityGroup, add/removeFloatingIp and
    add/removeFixedIp. ``network_api`` None: the deployment has no network service."""

    def __init__(self, network_api, events):
        self._network_api = network_api
        self._events = events

    @property
    def enabled(self):
        return self._network_api is not None

    def _require(self):
        if self._network_api is None:
            raise exception.NotFound('This deployment has no network service.')
        return self._network_api

    # -- create ------------------------------------------------------------

    def check_create(self, context, networks, security_groups, min_count, max_count):
        """Upstream's checks of ``networks`` and ``security_groups``: their 4xx,
        PortLimitExceeded (403) when the port quota leaves room for fewer than
        ``min_count`` servers; a CreateNetworks."""
        names = list(dict.fromkeys(security_groups or ())) or [DEFAULT_GROUP]
        if self._network_api is None:
            if networks not in (None, net_requests.NONE, net_requests.AUTO):
                raise exception.Invalid(
                    reason='Requested networks are not available: this deployment has no '
                           'network service; use "none" or "auto".')
            return CreateNetworks(networks, names, max_count)
        requested = net_requests.RequestedNetworks.from_api(networks)
        # Groups first, then networks, as upstream; checked even for "none". The
        # request spec keeps them as given: the host resolves them in the
        # server's project.
        self._network_api.security_groups.validate_for_create(context, names)
        room = self._network_api.validation.validate_networks(context, requested, max_count)
        if room < min_count:
            raise exception.PortLimitExceeded()
        if room < max_count:
            LOG.info('max_count lowered from %d to %d by the port quota', max_count, room)
            max_count = room
        return CreateNetworks(requested.to_primitive(), names, max_count)

    # -- views -------------------------------------------------------------

    def security_groups_of(self, context, instances):
        """{server uuid: [{'name': ...}]} from the servers' ports; {} without a network
        service (or when it cannot answer: views do not fail for it)."""
        if self._network_api is None:
            return {}
        # A server with no port in its network info cache, and no build or
        # operation under way that could be adding one, has no group to show:
        # it costs no Neutron query (a networkless poll used to make one).
        instances = [i for i in instances if _may_have_ports(i)]
        if not instances:
            return {}
        try:
            return self._network_api.security_groups.instances_security_groups(
                context, instances)
        except exception.NetworkServiceError as exc:
            LOG.warning('Security groups of %d servers not shown: %s', len(instances), exc)
            return {}

    # -- actions -----------------------------------------------------------

    def add_security_group(self, context, instance, name):
        self._require().security_groups.add_to_instance(context, instance, name)

    def remove_security_group(self, context, instance, name):
        self._require().security_groups.remove_from_instance(context, instance, name)

    def add_floating_ip(self, context, instance, address, fixed_address=None):
        """Point ``address`` at the server's ``fixed_address`` (by default its first
        fixed IPv4, as upstream), with upstream's 400s; the hosts then refresh the
        caches of the servers concerned."""
        network_api = self._require()
        network_info = instance['network_info'] or []
        if not network_info:
            raise exception.Invalid(reason='Instance network is not ready yet')
        fixed = model.all_fixed_ips(network_info)
        if not fixed:
            raise exception.Invalid(reason='No fixed IPs associated to instance')
        if fixed_address is not None:
            if fixed_address not in [ip['address'] for ip in fixed]:
                raise exception.Invalid(
                    reason='Specified fixed address not assigned to instance')
        else:
            v4 = [ip['address'] for ip in fixed if ip.get('version') == 4]
            if not v4:
                raise exception.Invalid(
                    reason='Unable to associate floating IP %(address)s to any fixed IPs '
                           'for instance %(id)s. Instance has no fixed IPv4 addresses to '
                           'associate.' % {'address': address, 'id': instance['uuid']})
            if len(fixed) > 1:
                LOG.warning('multiple fixed_ips exist, using the first IPv4 fixed_ip: %s',
                            v4[0])
            fixed_address = v4[0]
        try:
            previous = network_api.floating_ips.associate(context, instance, address,
                                                          fixed_address)
        except exception.FloatingIpNotFoundForAddress:
            raise exception.NotFound('floating IP not found') from None
        except (exception.FloatingIpAssociated, exception.FloatingIpAssociateFailed,
                exception.FixedIpNotFoundForAddress) as exc:
            raise exception.Invalid(reason=exc.format_message()) from None
        self._refresh(context, [instance['uuid']] + ([previous] if previous else []))

    def remove_floating_ip(self, context, instance, address):
        """409 unless ``address`` is on one of the server's ports, as upstream."""
        network_api = self._require()
        fip = network_api.floating_ips.get_by_address(context, address)
        if (not fip.get('port_id')
                or (fip.get('port_details') or {}).get('device_id') != instance['uuid']):
            raise exception.Conflict(
                'Floating IP %(address)s is not associated with instance %(id)s.'
                % {'address': address, 'id': instance['uuid']})
        network_api.floating_ips.disassociate(context, address)
        self._refresh(context, [instance['uuid']])

    def add_fixed_ip(self, context, instance, network_id):
        self._require().fixed_ips.add_fixed_ip_to_instance(context, instance, network_id)
        self._refresh(context, [instance['uuid']])

    def remove_fixed_ip(self, context, instance, address):
        try:
            self._require().fixed_ips.remove_fixed_ip_from_instance(context, instance,
                                                                    address)
        except exception.FixedIpNotFoundForSpecificInstance as exc:
            # Upstream's 400: the request names an address the server lacks.
            raise exception.Invalid(reason=exc.format_message()) from None
        self._refresh(context, [instance['uuid']])

    def _refresh(self, context, uuids):
        """The host of each server re-reads its ports: hosts alone write the cache."""
        events = [{'name': NETWORK_CHANGED, 'server_uuid': uuid} for uuid in uuids]
        try:
            self._events.external_instance_events(context, events)
        except Exception:  # noqa: BLE001 - the change is made; the heal catches up.
            LOG.exception('Could not ask the hosts of %s to refresh their network info',
                          uuids)


# Tasks that never add a port to a server: while one runs, a server whose
# cache lists no port still has none (the polls of a networkless rescue cost
# no Neutron query).
_PORT_NEUTRAL_TASKS = frozenset((
    vs.RESCUING, vs.UNRESCUING, vs.REBOOTING, vs.REBOOTING_HARD, 'reboot_pending',
    'reboot_started', 'reboot_pending_hard', 'reboot_started_hard', vs.POWERING_OFF,
    vs.POWERING_ON, 'pausing', 'unpausing', 'suspending', 'resuming', 'image_snapshot',
    'image_snapshot_pending', 'image_pending_upload', 'image_uploading', vs.IMAGE_BACKUP))


def _may_have_ports(instance):
    """False for a server whose cache lists no port while nothing can be adding one."""
    get = instance.get if isinstance(instance, dict) else lambda key: getattr(instance, key)
    task = get('task_state')
    return bool(get('network_info')) or get('vm_state') == vs.BUILDING or \
        (task is not None and task not in _PORT_NEUTRAL_TASKS)

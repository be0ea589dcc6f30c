"""Servers in the compute API: read, create (every check before a row is written), update."""

import json
import logging

from oslo_utils import strutils, timeutils, uuidutils

from nova import exception, trusted_certs
from nova import vm_states as vs
from nova.compute import (
    api_boot_image,
    api_handoff,
    block_device,
    host_rules,
    image_bdms,
    image_props,
    personality,
)
from nova.compute.request_values import (
    generate_password,
    hint_lists,
    image_id_from_ref,
    instance_hints,
    normalize_ip,
    sanitize_hostname,
)
from nova.image import glance, sysmeta
from nova.network import model as net_model
from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)


def _has_fixed_ip(instance, patterns):
    """Whether a fixed IP in ``instance``'s network info matches ``patterns[version]``."""
    for entry in net_model.all_fixed_ips(instance.get('network_info') or []):
        pattern = patterns.get(entry.get('version'))
        if pattern is not None and entry.get('address') and pattern.search(entry['address']):
            return True
    return False


class ServersAPI:
    """Reads, create and update of servers; deletion is DeleteAPI's."""

    def __init__(self, conf, db, quota, conductor_api, volume_api, boot_images, flavors,
                 keypairs, server_groups, zones, networking):
        self._conf = conf
        self._db = db
        self._quota = quota
        self._conductor_api = conductor_api
        self._volume_api = volume_api
        self._boot_images = boot_images
        self._flavors = flavors
        self._keypairs = keypairs
        self._server_groups = server_groups
        self._zones = zones
        self._networking = networking

    # -- reads -------------------------------------------------------------
    def get(self, context, uuid, read_deleted=False):
        """The instance row; another project's instance is 'not found'.

        ``read_deleted``: a deleted instance is found too (its actions stay
        readable, as upstream's from 2.21).
        """
        if not uuidutils.is_uuid_like(uuid):
            raise exception.InstanceNotFound(instance_id=uuid)
        project = None if context.is_admin else context.project_id
        return self._db.instance_get(uuid, project_id=project, read_deleted=read_deleted)

    def get_for_view(self, context, uuid, with_groups=False):
        """(instance, its volume mappings, its server group uuids): one query.

        For one server's view; access as ``get`` (no deleted instances).
        """
        if not uuidutils.is_uuid_like(uuid):
            raise exception.InstanceNotFound(instance_id=uuid)
        project = None if context.is_admin else context.project_id
        return self._db.instance_get_for_view(uuid, project_id=project, with_groups=with_groups)

    def list(self, context, filters, limit, marker, sort_keys, sort_dirs):
        """A page of instances. ``filters['fixed_ip_regex']`` ({IP version: compiled
        pattern}, the ``ip``/``ip6`` filters) keeps those with a fixed IP of that
        version the pattern finds (re.search: a plain address also matches the longer
        ones holding it, as upstream's substring match through Neutron does). It reads
        the network info caches, so the page is cut after it, not in SQL.
        """
        filters = dict(filters)
        fixed_ips = filters.pop('fixed_ip_regex', None)
        if not fixed_ips:
            return self._db.instance_get_all(filters, limit=limit, marker=marker,
                                             sort_keys=sort_keys, sort_dirs=sort_dirs)
        instances = self._db.instance_get_all(filters, limit=None, marker=marker,
                                              sort_keys=sort_keys, sort_dirs=sort_dirs)
        found = [i for i in instances if _has_fixed_ip(i, fixed_ips)]
        return found if limit is None else found[:limit]

    # -- create ------------------------------------------------------------
    def _get_flavor(self, context, flavor_ref):
        flavor_id = image_id_from_ref(str(flavor_ref))
        try:
            # A private flavor the project was not granted is 'not found'.
            flavor = self._flavors.flavor_get(context, flavor_id)
        except exception.FlavorNotFound:
            raise exception.Invalid(reason='Flavor %s could not be found.' % flavor_id)
        if flavor['disabled']:
            raise exception.Invalid(reason='Flavor %s is disabled.' % flavor_id)
        return flavor

    def create(self, context, request):
        """Validate a BootRequest fully, write the instances, and cast the build.

        Returns (instances, admin_password). Nothing is written when a check fails.
        """
        flavor, bdms, image_ref, boot = self._boot_source(context, request)
        cert_ids = trusted_certs.requested(self._conf, request.trusted_certs)
        # As upstream, only a request without imageRef counts as booting from a volume here.
        trusted_certs.check_image_backed(cert_ids, volume_backed=not image_ref)
        key_values = self._keypairs.key_values(context.user_id, request.key_name)
        zone, force_host = self._requested_zone(context, request.availability_zone)
        min_count, max_count = self._counts(request)
        networks = self._networking.check_create(context, request.networks,
                                                 request.security_groups, min_count, max_count)
        max_count = networks.max_count
        self._quota.check_metadata(context, request.metadata, context.project_id,
                                   context.user_id)
        files = personality.checked_files(self._quota, context, context.project_id,
                                          context.user_id, request.personality)
        disk_config = personality.disk_config(request.disk_config, boot.image)
        try:
            group = self._server_groups.group_from_hints(context, request.scheduler_hints)
        except exception.InstanceGroupNotFound as exc:
            raise exception.Invalid(reason=exc.format_message())
        if group is not None:
            self._server_groups.check_group_room(context, group, max_count)
        admin_password = request.admin_password or (
            generate_password() if self._conf.api.enable_instance_password else None)
        base = self._base_values(context, request, flavor, image_ref, boot.image)
        if request.scheduler_hints:
            # Shown from 2.100; kept beside the image's system metadata, unprefixed.
            base['system_metadata']['scheduler_hints'] = json.dumps(
                hint_lists(request.scheduler_hints))
        # Shown as the request gave them (2.105); the image metadata holds them merged.
        base['image_props_override'] = request.image_props_override or None
        trusted_certs.store(base['system_metadata'], cert_ids)
        base['system_metadata'][personality.DISK_CONFIG_KEY] = disk_config
        base.update(key_values)
        base['availability_zone'] = zone
        # The zone the server is pinned to ('' none): moves stay in it (2.96 shows it).
        base['system_metadata']['pinned_az'] = zone or ''
        instances = self._write_instances(context, request, flavor, bdms, base,
                                          min_count, max_count)
        spec = {'flavor': flavor['flavorid'], 'availability_zone': zone,
                'requested_networks': networks.requested_networks,
                'security_groups': networks.security_groups}
        if force_host:
            spec['force_host'] = force_host
        if group is not None:
            spec['group'] = group['uuid']
        spec.update(instance_hints(request.scheduler_hints))
        if files:
            spec['injected_files'] = files
        self._cast_build(context, instances, group, spec)
        return instances, admin_password

    def _boot_source(self, context, request):
        """(flavor, bdms, image_ref, image_props.Overridden), every check done.

        The overrides are checked and merged once; the merged image and its
        parsed properties serve every later check, the instance's image
        metadata and the build.
        """
        flavor = self._get_flavor(context, request.flavor_ref)
        image_ref = image_id_from_ref(request.image_ref or '')
        requested = list(request.block_device_mappings or ())
        image = None
        if image_ref:
            # Fetched once: its own mappings (a volume-backed server's snapshot) join
            # the request's, and it is the image the server boots with.
            image = self._boot_images.get_active(context, image_ref)
            requested = image_bdms.merge(image, requested)
        bdms, root = block_device.normalize(requested, image_ref, flavor)
        self._check_volumes(context, bdms, request.supports_multiattach)
        internal = self._boot_image(context, root, flavor,
                                    image if root['image_id'] == image_ref else None)
        self._boot_images.check_boot_files(context, internal)
        if root['bdm_image']:
            self._boot_images.get_active(context, root['bdm_image'])
        # A volume root records the image the request named, as upstream (none: '').
        image_ref = root['image_id'] if root['kind'] == 'image' else root['image_ref']
        boot = image_props.apply_checked(self._conf, internal, request.image_props_override)
        # Fail now, not on the compute host, when the effective props are bad.
        api_boot_image.check_flavor(flavor, boot.props)
        host_rules.check_buses_somewhere(self._conf, self._db, boot.image, flavor)
        return flavor, bdms, image_ref, boot

    def _cast_build(self, context, instances, group, spec):
        """Hand the written rows to the conductor; on any failure drop them all."""
        try:
            if group is not None:
                # Members from the start, as upstream: the scheduler counts them.
                self._db.server_group_add_members(group['uuid'],
                                                  [r['uuid'] for r in instances])
            objs = [instance_obj.Instance.from_db(r) for r in instances]
            self._conductor_api.build_instances(context, objs, spec)
        except Exception as exc:
            # Never leave half a request behind: drop every row we wrote.
            for row in instances:
                self._db.instance_hard_delete(row['uuid'])
            if api_handoff.undelivered(exc):
                LOG.warning('Create of %s not sent to nova-conductor (%s: %s): rolled back',
                            ', '.join(r['uuid'] for r in instances),
                            exc.__class__.__name__, exc)
                raise api_handoff.RequestNotSent(action='create', uuid=instances[0]['uuid'],
                                                 service='nova-conductor',
                                                 reason=exc.__class__.__name__) from None
            raise

    def _requested_zone(self, context, requested):
        """(zone, forced host) from 'zone', 'zone:host' or 'zone:host:node' (hosts: admins)."""
        requested = requested or self._conf.default_schedule_zone
        if not requested:
            return None, None
        zone, _sep, rest = requested.partition(':')
        host = rest.partition(':')[0] or None
        if host is not None:
            context.can('os_compute_api:servers:create:forced_host', target={})
        if zone:
            self._zones.check_availability_zone(context, zone)
        elif host is None:
            raise exception.Invalid(reason='The requested availability zone is not available')
        return zone or None, host

    def _counts(self, request):
        """(min_count, max_count), max_count capped so one request stays bounded."""
        min_count = request.min_count
        max_count = min_count if request.max_count is None else request.max_count
        if min_count > max_count:
            raise exception.Invalid(reason='min_count must be <= max_count')
        cap = self._conf.quota.max_instances_per_request
        if min_count > cap:
            raise exception.Invalid(reason='Invalid input for field/attribute min_count. '
                                           'Value: %d. At most %d servers can be created '
                                           'in one request.' % (min_count, cap))
        return min_count, min(max_count, cap)

    def _write_instances(self, context, request, flavor, bdms, base, min_count, max_count):
        """Check the quota and insert every row of the request in one transaction.

        The transaction holds the project's quota lock, so a concurrent create
        counts these rows (or waits for them) before it decides.
        """
        with self._quota.locked(context.project_id) as conn:
            count = self._quota.check_instances(context, flavor, min_count, max_count,
                                                context.project_id, context.user_id,
                                                conn=conn)
            values_list = []
            for index in range(count):
                values = dict(base, launch_index=index)
                if count > 1:
                    values['display_name'] = '%s-%d' % (request.name, index + 1)
                    values['hostname'] = sanitize_hostname(values['display_name'])
                values_list.append(values)
            return self._db.instances_create(conn, values_list, bdms=bdms,
                                             name_template=self._conf.instance_name_template,
                                             context=context, action='create')

    def _base_values(self, context, request, flavor, image_ref, image):
        props = image.get('properties', {})
        return {
            'project_id': context.project_id, 'user_id': context.user_id,
            'display_name': request.name,
            'display_description': request.description,
            # A requested hostname (2.90) is kept as given, an FQDN too (2.94), as
            # upstream; only one derived from the name is sanitized.
            'hostname': request.hostname or sanitize_hostname(request.name),
            'vm_state': vs.BUILDING, 'task_state': vs.SCHEDULING, 'power_state': 0,
            'image_ref': image_ref,
            'kernel_id': props.get('kernel_id'), 'ramdisk_id': props.get('ramdisk_id'),
            'flavor': {k: flavor[k] for k in (
                'id', 'flavorid', 'name', 'vcpus', 'memory_mb', 'root_gb', 'ephemeral_gb',
                'swap', 'rxtx_factor', 'is_public', 'disabled', 'description',
                'extra_specs')},
            'vcpus': flavor['vcpus'], 'memory_mb': flavor['memory_mb'],
            'root_gb': flavor['root_gb'], 'ephemeral_gb': flavor['ephemeral_gb'],
            'metadata': {} if request.metadata is None else request.metadata,
            'system_metadata': sysmeta.properties_to_sysmeta(image),
            'config_drive': 'True' if request.config_drive else '',
            'user_data': request.user_data,
            'availability_zone': request.availability_zone,
            'access_ip_v4': normalize_ip(request.access_ip_v4, 4),
            'access_ip_v6': normalize_ip(request.access_ip_v6, 6),
            'reservation_id': 'r-' + uuidutils.generate_uuid()[:8],
            'tags': sorted(set(request.tags)),
            'created_at': timeutils.utcnow().replace(microsecond=0),
        }

    def _boot_image(self, context, root, flavor, image=None):
        """The internal-form image whose properties the instance boots with.

        Volume roots take the request's image (imageRef) if it names one, else
        the image the volume is made from, as upstream: the mapping's image for
        image->volume, else the volume's volume_image_metadata. Without
        imageRef, an existing volume boots only when its ``bootable`` flag is
        set (upstream's 400 otherwise); a volume snapshot only when its source
        volume's is, and with that volume's metadata.
        """
        if root['image_id']:
            if image is None:
                image = self._boot_images.get_active(context, root['image_id'])
            if root['kind'] == 'image':
                api_boot_image.check_image_fits(image, flavor)
            return glance.image_dict_to_internal(image)
        bdm = root['bdm']
        meta = {}
        volume_id = bdm.get('volume_id')
        if bdm.get('snapshot_id'):
            # Cinder shows neither the flag nor the image metadata on a snapshot:
            # it inherits its volume's, which upstream reads (and names in the 400).
            volume_id = self._volume_api.get_snapshot(context, bdm['snapshot_id'])['volume_id']
        if volume_id:
            try:
                volume = self._volume_api.get(context, volume_id)
            except exception.VolumeNotFound:
                raise exception.Invalid(reason='Block Device Mapping is Invalid: failed to '
                                               'get volume %s.' % volume_id)
            # Cinder shows the flag as 'true'/'false'; a volume without it boots.
            if not strutils.bool_from_string(volume.get('bootable', True), default=True):
                raise exception.Invalid(reason='Block Device %s is not bootable.' % volume_id)
            meta = dict(volume.get('volume_image_metadata') or {})
        core = {k: meta.pop(k) for k in ('min_ram', 'min_disk', 'disk_format',
                                         'container_format', 'size', 'checksum',
                                         'image_id', 'image_name') if k in meta}
        return dict(core, properties=meta, status='active')

    def _check_volumes(self, context, bdms, supports_multiattach=False):
        """Existing volumes must exist and be attachable before anything is written."""
        for bdm in bdms:
            if bdm['source_type'] == 'volume':
                try:
                    volume = self._volume_api.get(context, bdm['volume_id'])
                except exception.VolumeNotFound:
                    raise exception.Invalid(reason='Volume %s could not be found.'
                                            % bdm['volume_id'])
                block_device.check_attachable(volume, supports_multiattach)
            elif bdm['source_type'] == 'snapshot':
                try:
                    self._volume_api.get_snapshot(context, bdm['snapshot_id'])
                except exception.NotFound:
                    raise exception.Invalid(reason='Snapshot %s could not be found.'
                                            % bdm['snapshot_id'])

    def update(self, context, instance, values):
        values = dict(values)
        for column, version in (('access_ip_v4', 4), ('access_ip_v6', 6)):
            if column in values:
                values[column] = normalize_ip(values[column], version)
        return self._db.instance_update(instance['uuid'], values)

    def current_zone(self, instance):
        """The zone a server is in, as its view shows it."""
        return instance['availability_zone'] or (
            self._conf.default_availability_zone if instance['host'] else '')

    def pinned_zone_value(self, instance, zone):
        """What to record for a 2.104 pin: '' unpins; a pin names the current zone only."""
        if zone is None:
            return ''
        if zone != self.current_zone(instance):
            raise exception.Invalid(
                reason='A server can only be pinned to its current availability zone (%s)'
                       % (self.current_zone(instance) or 'none'))
        return zone


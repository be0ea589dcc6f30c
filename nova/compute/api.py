"""The compute API: the business rules every caller of the REST API goes through."""

import json
import logging

from oslo_utils import strutils, timeutils, uuidutils

from nova import exception, quota, trusted_certs
from nova import vm_states as vs
from nova.compute import (
    api_actions,
    api_admin,
    api_admin_actions,
    api_aggregates,
    api_consoles,
    api_events,
    api_flavors,
    api_keypairs,
    api_live_migrate,
    api_password,
    api_proxy,
    api_records,
    api_rescue,
    api_resize,
    api_server_groups,
    api_shelve,
    api_usage,
    api_volume_snapshots,
    block_device,
    host_rules,
    image_props,
    personality,
)
from nova.compute.request_values import (  # shared with the API's mixins
    generate_password,
    hint_lists,
    image_id_from_ref,
    instance_hints,
    normalize_ip,
    sanitize_hostname,
)
from nova.image import glance, sysmeta
from nova.objects import image_meta as image_meta_obj
from nova.objects import instance as instance_obj
from nova.virt import guest_request

LOG = logging.getLogger(__name__)

class API(api_actions.ServerActionsMixin, api_rescue.RescueMixin, api_keypairs.KeypairsMixin,
          api_flavors.FlavorsMixin, api_admin.AdminMixin, api_aggregates.AggregatesMixin,
          api_server_groups.ServerGroupsMixin, api_admin_actions.AdminActionsMixin,
          api_events.ExternalEventsMixin, api_usage.UsageMixin, api_proxy.ProxyMixin,
          api_consoles.ConsolesMixin, api_password.PasswordMixin,
          api_resize.ResizeMixin, api_shelve.ShelveMixin, api_live_migrate.LiveMigrateMixin,
          api_records.RecordsMixin, api_volume_snapshots.VolumeSnapshotsMixin):
    """Validates requests fully before anything is written, then hands off by RPC."""

    def __init__(self, conf, db, image_api, conductor_api, compute_rpcapi, volume_api=None):
        self.conf = conf
        self.volume_api = volume_api
        self.db = db
        self.image_api = image_api
        self.conductor_api = conductor_api
        self.compute_rpcapi = compute_rpcapi
        # Quota sets, limits and the checks other resources call.
        self.quota = quota.QuotaEngine(conf, db)

    # -- reads -------------------------------------------------------------
    def get(self, context, uuid, read_deleted=False):
        """The instance row; another project's instance is 'not found'.

        ``read_deleted``: a deleted instance is found too (its actions stay
        readable, as upstream's from 2.21).
        """
        if not uuidutils.is_uuid_like(uuid):
            raise exception.InstanceNotFound(instance_id=uuid)
        project = None if context.is_admin else context.project_id
        return self.db.instance_get(uuid, project_id=project, read_deleted=read_deleted)

    def get_for_view(self, context, uuid, with_groups=False):
        """(instance, its volume mappings, its server group uuids): one query.

        For one server's view; access as ``get`` (no deleted instances).
        """
        if not uuidutils.is_uuid_like(uuid):
            raise exception.InstanceNotFound(instance_id=uuid)
        project = None if context.is_admin else context.project_id
        return self.db.instance_get_for_view(uuid, project_id=project, with_groups=with_groups)

    def list(self, context, filters, limit, marker, sort_keys, sort_dirs):
        return self.db.instance_get_all(filters, limit=limit, marker=marker,
                                        sort_keys=sort_keys, sort_dirs=sort_dirs)

    # -- create ------------------------------------------------------------
    def _get_flavor(self, context, flavor_ref):
        flavor_id = image_id_from_ref(str(flavor_ref))
        try:
            # A private flavor the project was not granted is 'not found'.
            flavor = self.flavor_get(context, flavor_id)
        except exception.FlavorNotFound:
            raise exception.Invalid(reason='Flavor %s could not be found.' % flavor_id)
        if flavor['disabled']:
            raise exception.Invalid(reason='Flavor %s is disabled.' % flavor_id)
        return flavor

    def _get_image(self, context, image_id):
        try:
            image = self.image_api.show(context, image_id)
        except exception.ImageNotFound:
            raise exception.Invalid(reason='Image %s could not be found.' % image_id)
        if image.get('status') != 'active':
            raise exception.Invalid(reason='Image %s is not active.' % image_id)
        return image

    def check_boot_files(self, context, image):
        """The kernel and ramdisk an image names must be images the caller may read.

        An image (or a volume's image metadata) may name any image id as its
        kernel or ramdisk; without this check another project's private image
        would boot, read from the compute host's cache. 400, as upstream.
        """
        props = image.get('properties') or {}
        for prop, what in (('kernel_id', 'Kernel'), ('ramdisk_id', 'Ramdisk')):
            image_id = props.get(prop)
            if not image_id:
                continue
            try:
                self.image_api.show(context, image_id)
            except exception.ImageNotFound:
                raise exception.Invalid(reason='%s image %s could not be found.'
                                        % (what, image_id))

    @staticmethod
    def _check_image_fits(image, flavor):
        gib = 1024 ** 3
        if flavor['memory_mb'] < int(image.get('min_ram') or 0):
            raise exception.Invalid(reason="Flavor's memory is too small for requested image.")
        if flavor['root_gb']:
            if int(image.get('size') or 0) > flavor['root_gb'] * gib:
                raise exception.Invalid(reason="Flavor's disk is too small for requested "
                                               "image. Flavor disk is %d bytes, image is %s "
                                               "bytes." % (flavor['root_gb'] * gib,
                                                           image.get('size')))
            if int(image.get('min_disk') or 0) > flavor['root_gb']:
                raise exception.Invalid(reason="Flavor's disk is too small for requested "
                                               "image.")

    @staticmethod
    def validate_image_for_flavor(flavor, image):
        """Effective image properties must parse and agree with the flavor."""
        props = image_meta_obj.ImageMetaProps.from_dict(image.get('properties', {}))
        # Flavor/image rules (NUMA, pinning, page sizes...) are pure checks,
        # run here so a conflict is a 400 before anything exists.
        guest_request.validate_image_request(flavor, props)

    def create(self, context, request):
        """Validate a BootRequest fully, write the instances, and cast the build.

        Returns (instances, admin_password). Nothing is written when a check fails.
        """
        flavor, bdms, image_ref, internal, overrides = self._boot_source(context, request)
        cert_ids = trusted_certs.requested(self.conf, request.trusted_certs)
        trusted_certs.check_image_backed(cert_ids, volume_backed=not image_ref)
        if request.networks not in (None, 'none', 'auto'):
            raise exception.Invalid(reason='Requested networks are not available: this '
                                           'deployment has no network service; use "none" or '
                                           '"auto".')
        key_values = self.key_values(context.user_id, request.key_name)
        zone, force_host = self._requested_zone(context, request.availability_zone)
        min_count, max_count = self._counts(request)
        self.quota.check_metadata(context, request.metadata, context.project_id,
                                  context.user_id)
        files = personality.checked_files(self.quota, context, context.project_id,
                                          context.user_id, request.personality)
        disk_config = personality.disk_config(request.disk_config, internal)
        try:
            group = self.group_from_hints(context, request.scheduler_hints)
        except exception.InstanceGroupNotFound as exc:
            raise exception.Invalid(reason=exc.format_message())
        if group is not None:
            self.check_group_room(context, group, max_count)
        admin_password = request.admin_password or (
            generate_password() if self.conf.api.enable_instance_password else None)
        base = self._base_values(context, request, flavor, image_ref, internal)
        if request.scheduler_hints:
            # Shown from 2.100; kept beside the image's system metadata, unprefixed.
            base['system_metadata']['scheduler_hints'] = json.dumps(
                hint_lists(request.scheduler_hints))
        base['image_props_override'] = overrides or None
        trusted_certs.store(base['system_metadata'], cert_ids)
        base['system_metadata'][personality.DISK_CONFIG_KEY] = disk_config
        base.update(key_values)
        base['availability_zone'] = zone
        # The zone the server is pinned to ('' none): moves stay in it (2.96 shows it).
        base['system_metadata']['pinned_az'] = zone or ''
        instances = self._write_instances(context, request, flavor, bdms, base,
                                          min_count, max_count)
        spec = {'flavor': flavor['flavorid'], 'availability_zone': zone}
        if force_host:
            spec['force_host'] = force_host
        if group is not None:
            spec['group'] = group['uuid']
        spec.update(instance_hints(request.scheduler_hints))
        if files:
            spec['injected_files'] = files
        self._cast_build(context, instances, group, internal, spec)
        return instances, admin_password

    def _boot_source(self, context, request):
        """(flavor, bdms, image_ref, internal image, overrides), every check done."""
        flavor = self._get_flavor(context, request.flavor_ref)
        image_ref = image_id_from_ref(request.image_ref or '')
        bdms, root = block_device.normalize(request.block_device_mappings, image_ref, flavor)
        self._check_volumes(context, bdms, request.supports_multiattach)
        internal = self._boot_image(context, root, flavor)
        self.check_boot_files(context, internal)
        image_ref = root['image_id'] if root['kind'] == 'image' else ''
        overrides = request.image_props_override or {}
        if overrides:
            image_props.validate_overrides(self.conf, overrides)
        internal = image_props.effective_image(internal, overrides)
        # Fail now, not on the compute host, when the effective props are bad.
        self.validate_image_for_flavor(flavor, internal)
        host_rules.check_buses_somewhere(self.conf, self.db, internal)
        return flavor, bdms, image_ref, internal, overrides

    def _cast_build(self, context, instances, group, internal, spec):
        """Hand the written rows to the conductor; on any failure drop them all."""
        try:
            if group is not None:
                # Members from the start, as upstream: the scheduler counts them.
                self.db.server_group_add_members(group['uuid'],
                                                 [r['uuid'] for r in instances])
            objs = [instance_obj.Instance.from_db(r) for r in instances]
            self.conductor_api.build_instances(context, objs, spec)
        except Exception:
            # Never leave half a request behind: drop every row we wrote.
            for row in instances:
                self.db.instance_hard_delete(row['uuid'])
            raise

    def _requested_zone(self, context, requested):
        """(zone, forced host) from 'zone', 'zone:host' or 'zone:host:node' (hosts: admins)."""
        requested = requested or self.conf.default_schedule_zone
        if not requested:
            return None, None
        zone, _sep, rest = requested.partition(':')
        host = rest.partition(':')[0] or None
        if host is not None:
            context.can('os_compute_api:servers:create:forced_host', target={})
        if zone:
            self.check_availability_zone(context, zone)
        elif host is None:
            raise exception.Invalid(reason='The requested availability zone is not available')
        return zone or None, host

    def _counts(self, request):
        """(min_count, max_count), max_count capped so one request stays bounded."""
        min_count = request.min_count
        max_count = min_count if request.max_count is None else request.max_count
        if min_count > max_count:
            raise exception.Invalid(reason='min_count must be <= max_count')
        cap = self.conf.quota.max_instances_per_request
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
        with self.quota.locked(context.project_id) as conn:
            count = self.quota.check_instances(context, flavor, min_count, max_count,
                                               context.project_id, context.user_id,
                                               conn=conn)
            values_list = []
            for index in range(count):
                values = dict(base, launch_index=index)
                if count > 1:
                    values['display_name'] = '%s-%d' % (request.name, index + 1)
                    values['hostname'] = sanitize_hostname(values['display_name'])
                values_list.append(values)
            return self.db.instances_create(conn, values_list, bdms=bdms,
                                            name_template=self.conf.instance_name_template,
                                            context=context, action='create')

    def _base_values(self, context, request, flavor, image_ref, image):
        props = image.get('properties', {})
        return {
            'project_id': context.project_id, 'user_id': context.user_id,
            'display_name': request.name,
            'display_description': request.description,
            'hostname': sanitize_hostname(request.hostname or request.name),
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

    def _boot_image(self, context, root, flavor):
        """The internal-form image whose properties the instance boots with.

        Volume roots take the image the volume was made from, as upstream:
        the request's image for image->volume, else the volume's
        volume_image_metadata. An existing volume boots only when its
        ``bootable`` flag is set (upstream's 400 otherwise); a volume snapshot
        only when its source volume's is, and with that volume's metadata.
        """
        if root['image_id']:
            image = self._get_image(context, root['image_id'])
            if root['kind'] == 'image':
                self._check_image_fits(image, flavor)
            return glance.image_dict_to_internal(image)
        bdm = root['bdm']
        meta = {}
        volume_id = bdm.get('volume_id')
        if bdm.get('snapshot_id'):
            # Cinder shows neither the flag nor the image metadata on a snapshot:
            # it inherits its volume's, which upstream reads (and names in the 400).
            volume_id = self.volume_api.get_snapshot(context, bdm['snapshot_id'])['volume_id']
        if volume_id:
            try:
                volume = self.volume_api.get(context, volume_id)
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
                    volume = self.volume_api.get(context, bdm['volume_id'])
                except exception.VolumeNotFound:
                    raise exception.Invalid(reason='Volume %s could not be found.'
                                            % bdm['volume_id'])
                block_device.check_attachable(volume, supports_multiattach)
            elif bdm['source_type'] == 'snapshot':
                try:
                    self.volume_api.get_snapshot(context, bdm['snapshot_id'])
                except exception.NotFound:
                    raise exception.Invalid(reason='Snapshot %s could not be found.'
                                            % bdm['snapshot_id'])

    # -- update / delete -----------------------------------------------------
    def update(self, context, instance, values):
        values = dict(values)
        for column, version in (('access_ip_v4', 4), ('access_ip_v6', 6)):
            if column in values:
                values[column] = normalize_ip(values[column], version)
        return self.db.instance_update(instance['uuid'], values)

    def current_zone(self, instance):
        """The zone a server is in, as its view shows it."""
        return instance['availability_zone'] or (
            self.conf.default_availability_zone if instance['host'] else '')

    def pinned_zone_value(self, instance, zone):
        """What to record for a 2.104 pin: '' unpins; a pin names the current zone only."""
        if zone is None:
            return ''
        if zone != self.current_zone(instance):
            raise exception.Invalid(
                reason='A server can only be pinned to its current availability zone (%s)'
                       % (self.current_zone(instance) or 'none'))
        return zone

    def check_locked(self, context, instance):
        if instance['locked'] and not context.is_admin:
            raise exception.InstanceLocked(instance_uuid=instance['uuid'])

    def delete(self, context, instance):
        if self.deferred_delete_applies(instance):
            return self.soft_delete(context, instance)
        self.check_locked(context, instance)
        self.hard_delete(context, instance)

    def hard_delete(self, context, instance):
        self.db.action_start(context, instance['uuid'], 'delete')
        # Console URLs of a deleted server open nothing any more.
        self.db.console_token_destroy_for_instance(instance['uuid'])
        self.delete_shelved_image(context, instance)
        if not instance['host']:
            # Never reached a host: nothing to clean up but the record, as
            # long as no host claimed it since we read it (then that host
            # must delete it, releasing its claim and any guest it started).
            if self.db.instance_destroy_unscheduled(instance['uuid']):
                return
        updated = self.db.instance_update(instance['uuid'], {'task_state': vs.DELETING})
        self.compute_rpcapi.terminate_instance(
            context, instance_obj.Instance.from_db(updated), updated['host'])

"""Volume and snapshot life cycles of the embedded volume service: records, statuses, files."""

import contextlib
import logging
import os
import re
import socket
import uuid

from nova import context as nova_context
from nova.embedded import files
from nova.embedded.volume import disks, errors, reimage, store, volume_types
from nova.embedded.volume import microversion as mv
from nova.embedded.volume.store import ATTACHMENTS, SNAPSHOTS, VOLUMES

LOG = logging.getLogger(__name__)

AVAILABILITY_ZONE = 'nova'
DEFAULT_TYPE = volume_types.DEFAULT_TYPE
# Largest volume accepted: qcow2's 64 TiB practical limit, in GiB.
MAX_SIZE_GB = 64 * 1024
DELETABLE = ('available', 'error', 'error_restoring', 'error_extending',
             'error_managing')
# Statuses the attachment records decide (see settle_attach_status).
ATTACH_DRIVEN = ('available', 'reserved', 'attaching', 'in-use', 'detaching')
SNAPSHOT_DELETABLE = ('available', 'error')
# os-update_snapshot_status: current status -> the statuses it may be set to.
_SNAPSHOT_STATUS_UPDATES = {'creating': ('creating', 'available', 'error'),
                            'deleting': ('deleting', 'error_deleting')}
_PERCENT = re.compile(r'^(100|[1-9]?[0-9])%$')
# Glance image attributes that are not image properties; Cinder copies
# only these base ones, plus every custom property, into the volume.
_IMAGE_BASE = ('checksum', 'container_format', 'disk_format', 'min_disk',
               'min_ram', 'size')
_IMAGE_NOT_PROPERTIES = ('id', 'name', 'status', 'visibility', 'protected',
                         'os_hidden', 'owner', 'created_at', 'updated_at',
                         'tags', 'self', 'file', 'schema', 'direct_url',
                         'locations', 'stores', 'virtual_size',
                         'os_hash_algo', 'os_hash_value', 'properties')


def _image_inaccessible(exc):
    """Does a fetcher error mean "no such image for you" (a 400)?"""
    return (isinstance(exc, (LookupError, FileNotFoundError, PermissionError))
            or getattr(exc, 'code', None) in (400, 403, 404)
            or type(exc).__name__.endswith(('NotFound', 'Forbidden')))


def request_context(caller):
    """The RequestContext image fetches act as: the caller's own.

    Behind the auth layer that is the request's context (with its token);
    otherwise one naming the caller's user and project.
    """
    if caller.context is not None:
        return caller.context
    roles = ['reader', 'member'] + (['admin'] if caller.is_admin else [])
    return nova_context.RequestContext(
        user_id=caller.user_id, project_id=caller.project_id, roles=roles,
        is_admin=caller.is_admin, overwrite=False)


def _meta_string(value):
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return str(value)


def image_metadata(image_id, image, disk_format, data_size):
    """volume_image_metadata: Cinder's copy of the image's attributes."""
    meta = {'image_id': image_id}
    if isinstance(image, dict):
        if image.get('name') is not None:
            meta['image_name'] = image['name']
        properties = dict(image.get('properties') or {})
        properties.update((k, v) for k, v in image.items()
                          if k not in _IMAGE_NOT_PROPERTIES)
        for key, value in properties.items():
            if value is not None:
                meta[key] = _meta_string(value)
    meta.setdefault('disk_format', disk_format)
    meta.setdefault('size', str(data_size))
    return meta


class VolumeManager(reimage.ReimageMixin):
    """What the volume API does, independent of HTTP.

    Every status change is a short critical section on the store's lock;
    qemu-img runs outside it between a transitional status ('creating',
    'extending', 'deleting') and the final one, so other requests see the
    operation in progress and cannot interfere.
    """

    def __init__(self, data_dir, image_fetcher=None, volume_format='qcow2',
                 host=None):
        if volume_format not in disks.VOLUME_FORMATS:
            raise ValueError('volume_format must be one of %s'
                             % ', '.join(disks.VOLUME_FORMATS))
        self.store = store.Store(data_dir)
        self.image_fetcher = image_fetcher
        self.volume_format = volume_format
        # Cinder's host@backend#pool form.
        self.host = host or '%s@file#file' % socket.gethostname()
        self._recover()

    # -- lookups ----------------------------------------------------------

    def _visible(self, kind, record_id, caller):
        record = self.store.get(kind, record_id)
        if record is None:
            return None
        if not caller.is_admin and record['project_id'] != caller.project_id:
            return None
        return record

    def get_volume(self, caller, volume_id):
        volume = self._visible(VOLUMES, volume_id, caller)
        if volume is None:
            raise errors.NotFound('Volume %s could not be found.' % volume_id)
        return volume

    def get_snapshot(self, caller, snapshot_id):
        snapshot = self._visible(SNAPSHOTS, snapshot_id, caller)
        if snapshot is None:
            raise errors.NotFound('Snapshot %s could not be found.'
                                  % snapshot_id)
        return snapshot

    def attachments_of(self, volume_id):
        return sorted((a for a in self.store.list(ATTACHMENTS)
                       if a['volume_id'] == volume_id),
                      key=lambda a: a['created_ns'])

    def attachments_by_volume(self):
        """volume id -> its attachments, oldest first, from one pass."""
        grouped = {}
        for attachment in sorted(self.store.list(ATTACHMENTS),
                                 key=lambda a: a['created_ns']):
            grouped.setdefault(attachment['volume_id'], []).append(attachment)
        return grouped

    def snapshots_of(self, volume_id):
        return [s for s in self.store.list(SNAPSHOTS)
                if s['volume_id'] == volume_id]

    def check_volume_type(self, caller, name_or_id):
        try:
            return volume_types.find(self, caller, name_or_id)
        except errors.NotFound:
            raise errors.NotFound('Volume type with name %s could not be found.'
                                  % name_or_id) from None

    # -- volume create ----------------------------------------------------

    def create_volume(self, caller, spec):
        """Validate, record the volume as 'creating', build its disk file.

        ``spec``: size (int or None), name, description, metadata,
        image_id, snapshot_id, source_volid, volume_type. Returns the
        record as accepted (status 'creating'); the build runs before
        returning and leaves the volume 'available' or 'error'.
        """
        vtype = self.check_volume_type(caller, spec.get('volume_type'))
        # Fixed at creation, as Cinder does. QEMU shares only raw files
        # between guests (libvirt refuses a shareable qcow2 disk).
        multiattach = volume_types.is_multiattach(vtype)
        given = [key for key in ('image_id', 'snapshot_id', 'source_volid')
                 if spec.get(key)]
        if len(given) > 1:
            raise errors.BadRequest('Invalid input received: only one of '
                                    'imageRef, snapshot_id and source_volid '
                                    'may be given, not %s.'
                                    % ' and '.join(given))
        record = {
            'id': str(uuid.uuid4()), 'name': spec.get('name'),
            'description': spec.get('description'), 'status': 'creating',
            'attach_status': 'detached', 'size': spec.get('size'),
            'project_id': caller.project_id, 'user_id': caller.user_id,
            'availability_zone': AVAILABILITY_ZONE,
            'volume_type': vtype['name'], 'volume_type_id': vtype['id'],
            'bootable': False, 'snapshot_id': spec.get('snapshot_id'),
            'source_volid': spec.get('source_volid'),
            'volume_image_metadata': None,
            'metadata': dict(spec.get('metadata') or {}),
            'multiattach': multiattach,
            'format': 'raw' if multiattach else self.volume_format,
            'created_at': store.now(),
            'updated_at': None, 'error': None,
        }
        with contextlib.ExitStack() as cleanup:
            if spec.get('image_id'):
                build = self._prepare_image(caller, record, spec['image_id'],
                                            cleanup)
                accepted = self.store.put(VOLUMES, record)
            else:
                with self.store.lock:
                    if spec.get('snapshot_id'):
                        build = self._prepare_snapshot_copy(caller, record,
                                                            cleanup)
                    elif spec.get('source_volid'):
                        build = self._prepare_clone(caller, record, cleanup)
                    elif record['size'] is None:
                        raise errors.BadRequest(
                            'Invalid input received: size is required unless '
                            'the volume is created from a snapshot or another '
                            'volume.')
                    else:
                        build = self._blank
                    # Saved under the lock that checked the source and
                    # took a hold on it, so it cannot vanish in between.
                    accepted = self.store.put(VOLUMES, record)
            self._build(accepted, build)
        return accepted

    def _size_from(self, record, source_size, what):
        if record['size'] is None:
            record['size'] = source_size
        elif record['size'] < source_size:
            raise errors.BadRequest(
                "Invalid input received: Volume size '%d'GB cannot be smaller "
                "than the %s size %dGB. They must be >= original %s size."
                % (record['size'], what, source_size, what))

    def _prepare_snapshot_copy(self, caller, record, cleanup):
        snapshot = self.get_snapshot(caller, record['snapshot_id'])
        if snapshot['status'] != 'available':
            raise errors.BadRequest('Invalid snapshot: Originating snapshot '
                                    'status must be available, but it is %s.'
                                    % snapshot['status'])
        self._size_from(record, snapshot['size'], 'snapshot')
        record.update(bootable=snapshot['bootable'],
                      volume_image_metadata=snapshot['volume_image_metadata'])
        cleanup.enter_context(self.store.hold(SNAPSHOTS, snapshot['id']))
        src = self.store.snapshot_path(snapshot['id'])
        return lambda path, rec: self._copy(src, snapshot['format'], path,
                                            rec, force_share=False)

    def _prepare_clone(self, caller, record, cleanup):
        source = self.get_volume(caller, record['source_volid'])
        if source['status'] not in ('available', 'in-use'):
            raise errors.BadRequest('Invalid volume: Source volume status must '
                                    'be available or in-use, but it is %s.'
                                    % source['status'])
        self._size_from(record, source['size'], 'volume')
        record.update(bootable=source['bootable'],
                      volume_image_metadata=source['volume_image_metadata'])
        cleanup.enter_context(self.store.hold(VOLUMES, source['id']))
        src = self.store.volume_path(source['id'])
        # An in-use source is open in a guest: read it without its lock.
        return lambda path, rec: self._copy(src, source['format'], path, rec,
                                            force_share=True)

    def _prepare_image(self, caller, record, image_id, cleanup):
        """Fetch and check image data before anything is recorded.

        The image is read as the caller, so a volume can only be made from
        an image its requester may use (as Cinder does). An inaccessible
        or unusable image is the caller's mistake: 400 and no record. A
        fetch that fails otherwise (the image service is down) still
        records the volume, which then goes to 'error'.
        """
        if self.image_fetcher is None:
            raise errors.BadRequest('Invalid input received: this volume '
                                    'service cannot create volumes from '
                                    'images.')
        if record['size'] is None:
            raise errors.BadRequest('Invalid input received: size is required '
                                    'when creating a volume from an image.')
        staged = self.store.temp_path('image')
        cleanup.callback(files.unlink, staged)
        try:
            image = self.image_fetcher(request_context(caller), image_id,
                                       staged)
        except Exception as exc:
            if _image_inaccessible(exc):
                raise errors.BadRequest('Invalid image identifier or unable to '
                                        'access requested image.') from exc
            LOG.exception('fetching image %s for volume %s failed', image_id,
                          record['id'])
            reason = 'fetching image %s failed: %s' % (image_id, exc)
            return lambda path, rec: self._fail(reason)
        declared = image.get('disk_format') if isinstance(image, dict) \
            else None
        try:
            fmt, virtual_size = disks.inspect_image(staged, declared)
        except disks.DiskError as exc:
            raise errors.BadRequest('Image %s is unacceptable: %s'
                                    % (image_id, exc)) from exc
        if virtual_size > record['size'] * disks.GiB:
            raise errors.BadRequest(
                "Invalid input received: Image virtual size is %dGB and "
                "doesn't fit in a volume of size %dGB."
                % (-(-virtual_size // disks.GiB), record['size']))
        record.update(bootable=True, volume_image_metadata=image_metadata(
            image_id, image, fmt, os.path.getsize(staged)))
        return lambda path, rec: self._copy(staged, fmt, path, rec,
                                            force_share=False)

    @staticmethod
    def _fail(reason):
        raise disks.DiskError(reason)

    def _blank(self, path, record):
        disks.create(path, record['format'], record['size'])

    @staticmethod
    def _copy(src, src_fmt, path, record, force_share):
        disks.convert(src, src_fmt, path, record['format'],
                      force_share=force_share)
        disks.grow(path, record['format'], record['size'])

    def _build(self, record, build, status='available', **values):
        """Run ``build(part_path, record)`` and publish or fail the volume.

        On success the volume takes ``status`` and ``values``; on failure
        'error', its data file as it was.
        """
        final = self.store.volume_path(record['id'])
        part = final + '.part'
        try:
            build(part, record)
            os.replace(part, final)
        except (disks.DiskError, OSError) as exc:
            files.unlink(part)
            LOG.error('writing volume %s failed: %s', record['id'], exc)
            self.store.update(VOLUMES, record['id'], status='error',
                              error=str(exc))
            return
        self.store.update(VOLUMES, record['id'], status=status, **values)

    # -- volume changes ---------------------------------------------------

    def update_volume(self, caller, volume_id, changes):
        with self.store.lock:
            self.get_volume(caller, volume_id)
            return self.store.update(VOLUMES, volume_id, **changes)

    def delete_volume(self, caller, volume_id, cascade=False):
        with self.store.lock:
            volume = self.get_volume(caller, volume_id)
            if self.store.held(VOLUMES, volume_id):
                raise errors.BadRequest('Invalid volume: Volume %s is being '
                                        'copied; delete it once the copy has '
                                        'finished.' % volume_id)
            attachments = self.attachments_of(volume_id)
            if volume['status'] not in DELETABLE or attachments:
                raise errors.BadRequest(
                    'Invalid volume: Volume status must be available or error '
                    'or error_restoring or error_extending or error_managing '
                    'and must not be migrating, attached, belong to a group, '
                    'have snapshots or be awaiting a transfer. Volume %s is '
                    '%s with %d attachment(s).'
                    % (volume_id, volume['status'], len(attachments)))
            snapshots = self.snapshots_of(volume_id)
            if snapshots and not cascade:
                raise errors.BadRequest('Invalid volume: Volume %s still has '
                                        '%d dependent snapshot(s).'
                                        % (volume_id, len(snapshots)))
            for snapshot in snapshots:
                self._check_snapshot_deletable(snapshot)
            for snapshot in snapshots:
                self.store.update(SNAPSHOTS, snapshot['id'], status='deleting')
            self.store.update(VOLUMES, volume_id, status='deleting')
        for snapshot in snapshots:
            self._purge_snapshot(snapshot['id'])
        self._purge_volume(volume_id)

    def _purge_volume(self, volume_id):
        files.unlink(self.store.volume_path(volume_id))
        self.store.remove(VOLUMES, volume_id)

    def extend_volume(self, caller, volume_id, new_size):
        with self.store.lock:
            volume = self.get_volume(caller, volume_id)
            if volume['status'] != 'available':
                extra = (' The embedded volume service cannot resize a disk '
                         'a guest has open.'
                         if volume['status'] == 'in-use' else '')
                raise errors.BadRequest(
                    'Invalid volume: Volume %s status must be available to '
                    'extend, but current status is: %s.%s'
                    % (volume_id, volume['status'], extra))
            if new_size <= volume['size']:
                raise errors.BadRequest(
                    'Invalid input received: New size for extend must be '
                    'greater than current size. (current: %d, extended: %d).'
                    % (volume['size'], new_size))
            volume = self.store.update(VOLUMES, volume_id, status='extending')
        try:
            disks.grow(self.store.volume_path(volume_id), volume['format'],
                       new_size)
        except (disks.DiskError, OSError) as exc:
            LOG.error('extending volume %s failed: %s', volume_id, exc)
            self.store.update(VOLUMES, volume_id, status='error_extending',
                              error=str(exc))
            return
        self.store.update(VOLUMES, volume_id, status='available',
                          size=new_size)

    def reset_status(self, caller, volume_id, status=None, attach_status=None,
                     migration_status=None):
        if not caller.is_admin:
            raise errors.Forbidden("Policy doesn't allow volume_extension:"
                                   "volume_admin_actions:reset_status to be "
                                   "performed.")
        changes = {}
        if status:
            changes['status'] = status
        if attach_status:
            changes['attach_status'] = attach_status
        if migration_status:
            # Cinder's spelling of "no migration".
            changes['migration_status'] = (None if migration_status.lower() == 'none'
                                           else migration_status)
        return self.update_volume(caller, volume_id, changes)

    # -- snapshots --------------------------------------------------------

    def create_snapshot(self, caller, spec, version):
        """Record a snapshot as 'creating' and copy the volume into it."""
        with contextlib.ExitStack() as cleanup:
            with self.store.lock:
                volume = self.get_volume(caller, spec['volume_id'])
                self._check_snapshottable(volume, spec.get('force'), version)
                accepted = self.store.put(SNAPSHOTS, {
                    'id': str(uuid.uuid4()), 'name': spec.get('name'),
                    'description': spec.get('description'),
                    'volume_id': volume['id'], 'size': volume['size'],
                    'status': 'creating', 'progress': '0%',
                    'project_id': volume['project_id'],
                    'user_id': caller.user_id,
                    'metadata': dict(spec.get('metadata') or {}),
                    'format': volume['format'],
                    'bootable': volume['bootable'],
                    'volume_image_metadata': volume['volume_image_metadata'],
                    'created_at': store.now(), 'updated_at': None,
                    'error': None,
                })
                cleanup.enter_context(self.store.hold(VOLUMES, volume['id']))
            final = self.store.snapshot_path(accepted['id'])
            part = final + '.part'
            try:
                # A full, independent copy: the snapshot survives whatever
                # happens to the volume, and -U reads it while attached.
                disks.convert(self.store.volume_path(volume['id']),
                              volume['format'], part, volume['format'],
                              force_share=True)
                os.replace(part, final)
            except (disks.DiskError, OSError) as exc:
                files.unlink(part)
                LOG.error('snapshot %s of volume %s failed: %s',
                          accepted['id'], volume['id'], exc)
                self.store.update(SNAPSHOTS, accepted['id'], status='error',
                                  error=str(exc))
            else:
                self.store.update(SNAPSHOTS, accepted['id'],
                                  status='available', progress='100%')
        return accepted

    @staticmethod
    def _check_snapshottable(volume, force, version):
        status = volume['status']
        if status == 'in-use':
            if version >= mv.SNAPSHOT_IN_USE:
                if force is False:
                    raise errors.BadRequest(
                        "Invalid value 'False' for force. Since microversion "
                        "3.66 in-use volumes are snapshotted without it.")
                return
            if force:
                return
            raise errors.BadRequest('Invalid volume: Volume %s is in-use; '
                                    'pass force=true to snapshot it.'
                                    % volume['id'])
        if status != 'available':
            raise errors.BadRequest('Invalid volume: Volume %s status must be '
                                    'available or in-use, but current status '
                                    'is: %s.' % (volume['id'], status))

    def _check_snapshot_deletable(self, snapshot):
        if self.store.held(SNAPSHOTS, snapshot['id']):
            raise errors.BadRequest('Invalid snapshot: Snapshot %s is being '
                                    'copied into a volume.' % snapshot['id'])
        if snapshot['status'] not in SNAPSHOT_DELETABLE:
            raise errors.BadRequest('Invalid snapshot: Snapshot %s status must '
                                    'be available or error, but it is %s.'
                                    % (snapshot['id'], snapshot['status']))

    def update_snapshot(self, caller, snapshot_id, changes):
        with self.store.lock:
            self.get_snapshot(caller, snapshot_id)
            return self.store.update(SNAPSHOTS, snapshot_id, **changes)

    def update_snapshot_status(self, caller, snapshot_id, status, progress=None):
        """Cinder's os-update_snapshot_status: only a snapshot still 'creating'
        or 'deleting' moves, and only to what that status may become."""
        if progress and not _PERCENT.match(progress):
            raise errors.BadRequest('progress must be an integer percentage')
        with self.store.lock:
            snapshot = self.get_snapshot(caller, snapshot_id)
            allowed = _SNAPSHOT_STATUS_UPDATES.get(snapshot['status'])
            if allowed is None:
                raise errors.BadRequest('Snapshot status %s not allowed for '
                                        'update_snapshot_status'
                                        % snapshot['status'])
            if status not in allowed:
                raise errors.BadRequest(
                    'Provided snapshot status %s not allowed for snapshot with '
                    'status %s.' % (status, snapshot['status']))
            changes = {'status': status}
            if progress:
                changes['progress'] = progress
            return self.store.update(SNAPSHOTS, snapshot_id, **changes)

    def delete_snapshot(self, caller, snapshot_id):
        with self.store.lock:
            snapshot = self.get_snapshot(caller, snapshot_id)
            self._check_snapshot_deletable(snapshot)
            self.store.update(SNAPSHOTS, snapshot_id, status='deleting')
        self._purge_snapshot(snapshot_id)

    def _purge_snapshot(self, snapshot_id):
        files.unlink(self.store.snapshot_path(snapshot_id))
        self.store.remove(SNAPSHOTS, snapshot_id)

    # -- restart ----------------------------------------------------------

    def _recover(self):
        """Finish or fail what a stop interrupted; nothing stays transitional."""
        for snapshot in self.store.list(SNAPSHOTS):
            if snapshot['status'] == 'deleting':
                self._purge_snapshot(snapshot['id'])
            elif snapshot['status'] == 'creating':
                self.store.update(SNAPSHOTS, snapshot['id'], status='error',
                                  error='interrupted by a restart')
        for volume in self.store.list(VOLUMES):
            status = volume['status']
            if status == 'deleting':
                self._purge_volume(volume['id'])
            elif status in ('creating', 'extending', 'downloading'):
                new = 'error_extending' if status == 'extending' else 'error'
                LOG.warning('volume %s was %s at shutdown; now %s',
                            volume['id'], status, new)
                self.store.update(VOLUMES, volume['id'], status=new,
                                  error='interrupted by a restart')

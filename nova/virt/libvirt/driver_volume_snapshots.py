"""LibvirtDriver: assisted snapshots of attached file volumes (external overlays, merges)."""

import json
import logging
import os
import time

from nova import exception
from nova.virt.libvirt import config as vconfig
from nova.virt.libvirt import imagebackend

LOG = logging.getLogger(__name__)

# How long a blockRebase/blockCommit may run before it is aborted.
BLOCK_JOB_TIMEOUT = 600


def volume_disk(xml, volume_id):
    """(target dev, [active file, its backing files...], active format) of the file
    disk whose serial is ``volume_id`` in domain XML ``xml``; None if absent.  The
    backing files are known only from a running domain's XML."""
    return _volume_disk(vconfig.GuestDomain.from_xml(xml), volume_id)


def _volume_disk(domain, volume_id):
    for disk in domain.get_disks():
        if disk.serial != volume_id:
            continue
        if disk.source_type != 'file' or not disk.source_path or not disk.target_dev:
            return None
        return (disk.target_dev, [disk.source_path] + disk.backing_chain(),
                disk.driver_format or 'raw')
    return None


def snapshot_xml(dev, new_path, other_devs):
    """<domainsnapshot> taking ``dev`` into the qcow2 ``new_path`` and no other disk."""
    disks = [vconfig.GuestSnapshotDisk(name=dev, snapshot='external', type='file',
                                       driver_type='qcow2', source_path=new_path)]
    disks += [vconfig.GuestSnapshotDisk(name=other, snapshot='no') for other in other_devs]
    return vconfig.GuestSnapshot(disks=disks).to_xml(pretty_print=False)


def _fail(reason):
    return exception.HypervisorError(reason=reason)


class LibvirtVolumeSnapshots:
    """Assisted snapshots of attached file volumes: external overlays and merges."""

    def __init__(self, core):
        self._core = core

    def _snapshot_disk(self, guest, volume_id):
        """(running, the parsed domain, volume_disk's answer) of the volume."""
        running = guest.is_active()
        domain = vconfig.GuestDomain.from_xml(guest.get_xml_desc(inactive=not running))
        found = _volume_disk(domain, volume_id)
        if found is None:
            raise _fail("Disk with id '%s' not found attached to instance." % volume_id)
        return running, domain, found

    def volume_snapshot_create(self, context, instance, volume_id, create_info):
        """Snapshot the volume: the guest goes on writing to a new qcow2 overlay
        ``create_info['new_file']`` beside the active file, backed by it.  The
        overlay is made here unless the volume service made it already.  Returns
        the new active file."""
        if create_info.get('type') != 'qcow2':
            raise _fail('Unknown type: %s' % create_info.get('type'))
        if not create_info.get('snapshot_id'):
            raise _fail('snapshot_id required in create_info')
        new_file = create_info.get('new_file') or ''
        if os.path.basename(new_file) != new_file or new_file in ('', '.', '..'):
            raise _fail('new_file must be a file name in the volume\'s directory, got %r'
                        % new_file)
        guest = self._core.guest(instance)
        _running, domain, (dev, chain, fmt) = self._snapshot_disk(guest, volume_id)
        new_path = os.path.join(os.path.dirname(chain[0]), new_file)
        if new_path in chain:
            raise _fail('%s is already in the disk chain of volume %s' % (new_file, volume_id))
        made = False
        if os.path.exists(new_path):
            # Made by the volume service (REUSE_EXT): only an overlay of this very
            # file may go under the guest, never a leftover of another volume.
            self._check_overlay(new_path, chain[0])
        else:
            try:
                imagebackend.execute('qemu-img', 'create', '-f', 'qcow2', '-F', fmt,
                                     '-b', chain[0], new_path)
            except imagebackend.ProcessError as exc:
                raise _fail(exc.format_message())
            made = True
        others = [disk.target_dev for disk in domain.get_disks()
                  if disk.target_dev and disk.target_dev != dev]
        # No quiesce: it needs a guest agent, and upstream goes on without one.
        try:
            guest.snapshot_disks_external(snapshot_xml(dev, new_path, others))
        except Exception:
            if made:
                os.unlink(new_path)
            raise
        LOG.info('Volume %s of %s now writes to %s (backed by %s)', volume_id,
                 instance.uuid, new_path, chain[0])
        return new_path

    @staticmethod
    def _check_overlay(path, backing):
        try:
            out = imagebackend.execute('qemu-img', 'info', '-U', '--output=json', path,
                                       limits=True)
        except imagebackend.ProcessError as exc:
            raise _fail(exc.format_message())
        info = json.loads(out)
        found = info.get('full-backing-filename') or info.get('backing-filename')
        if info.get('format') != 'qcow2' or found != backing:
            raise _fail('%s exists and is not a qcow2 overlay of %s' % (path, backing))

    def volume_snapshot_delete(self, context, instance, volume_id, snapshot_id, delete_info):
        """Merge as upstream: without merge_target_file, pull the chain into the
        active file down to file_to_merge (blockRebase; qemu-img rebase when the
        guest is stopped); with it, commit file_to_merge into merge_target_file
        (blockCommit, running guest only).  Returns the active file."""
        if delete_info.get('type') != 'qcow2':
            raise _fail('Unknown delete_info type %s' % delete_info.get('type'))
        guest = self._core.guest(instance)
        running, _domain, (dev, chain, _fmt) = self._snapshot_disk(guest, volume_id)
        active = chain[0]
        if not running:
            # A stopped domain's XML names the active file only: ask the files.
            chain = self._file_chain(active)

        def resolve(name):
            if name is None:
                return None
            path = name if os.path.isabs(name) else os.path.join(os.path.dirname(active),
                                                                 name)
            if path not in chain[1:]:
                raise _fail('no match found for %s' % name)
            return path

        target = delete_info.get('merge_target_file')
        if target is None:
            base = resolve(delete_info.get('file_to_merge'))
            if running:
                guest.block_rebase(dev, base)
                self._wait_block_job(guest, dev, 'blockRebase')
            else:
                self._offline_rebase(active, base)
        else:
            if not running:
                raise _fail('merging into %s needs a running guest (blockCommit)' % target)
            top = resolve(delete_info.get('file_to_merge'))
            if top is None:
                raise _fail('file_to_merge is required with merge_target_file')
            guest.block_commit(dev, resolve(target), top)
            self._wait_block_job(guest, dev, 'blockCommit')
        LOG.info('Merged snapshot %s of volume %s on %s', snapshot_id, volume_id,
                 instance.uuid)
        return active

    @staticmethod
    def _wait_block_job(guest, dev, what):
        deadline = time.monotonic() + BLOCK_JOB_TIMEOUT
        while guest.block_job_running(dev):
            if time.monotonic() > deadline:
                guest.block_job_abort(dev)
                raise _fail('%s of %s did not finish in %ss' % (what, dev, BLOCK_JOB_TIMEOUT))
            time.sleep(0.1)

    @staticmethod
    def _file_chain(active):
        """[active, its backing files...] as qemu-img reads them."""
        try:
            out = imagebackend.execute('qemu-img', 'info', '-U', '--backing-chain',
                                       '--output=json', active, limits=True)
        except imagebackend.ProcessError as exc:
            raise _fail(exc.format_message())
        return [image['filename'] for image in json.loads(out)]

    @staticmethod
    def _offline_rebase(active, base):
        """qemu-img rebase of a stopped guest's active file onto ``base`` (or none)."""
        cmd = ['qemu-img', 'rebase', '-f', 'qcow2', '-b', base or '']
        if base:
            cmd += ['-F', imagebackend.qemu_img_info(base).get('format', 'qcow2')]
        try:
            imagebackend.execute(*cmd, active)
        except imagebackend.ProcessError as exc:
            raise _fail(exc.format_message())

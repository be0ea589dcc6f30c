"""Libvirt driver: live migration of a running guest to another libvirt daemon, disks copied."""

import json
import logging
import os
import shutil
import threading

import libvirt

from nova import exception
from nova.virt.libvirt import config as vconfig
from nova.virt.libvirt import consoles, imagebackend
from nova.virt.libvirt import volume as libvirt_volume

LOG = logging.getLogger(__name__)

# Files of the instance directory the guest never writes: copied as they are.
_STATIC = ('disk.config',)
PROGRESS_INTERVAL = 0.5
# Bandwidth of a forced completion, MiB/s: as fast as QEMU goes.
UNCAPPED_MIB_S = 1 << 20


def _disk_facts(path):
    """Format, size and backing of a disk the running guest holds (read without its lock)."""
    try:
        info = json.loads(imagebackend.execute('qemu-img', 'info', '-U', '--output=json', path,
                                               limits=True))
    except imagebackend.ProcessError as exc:
        raise exception.MigrationPreCheckError(reason=exc.format_message())
    return {'format': info.get('format'), 'virtual_size': info.get('virtual-size'),
            'backing': info.get('full-backing-filename') or info.get('backing-filename'),
            'backing_format': info.get('backing-filename-format')}


def _machine_id():
    """This machine's identity (systemd's machine-id), '' when there is none."""
    for path in ('/etc/machine-id', '/var/lib/dbus/machine-id'):
        try:
            with open(path) as handle:
                return handle.read().strip()
        except OSError:
            continue
    return ''


def writable_local_disks(domain, inst_dir):
    """[(target dev, path)] of the writable file disks of ``domain`` (a
    config.GuestDomain) that live in the instance directory ``inst_dir``."""
    prefix = os.path.join(inst_dir, '')
    return [(disk.target_dev, disk.source_path) for disk in domain.get_disks()
            if disk.source_type == 'file' and disk.source_path and
            disk.source_path.startswith(prefix) and disk.target_dev and
            not disk.readonly]


def _swapper(swaps):
    """A path function: each (old dir, new dir) of ``swaps`` replaced in a
    path that is or lies under the old dir."""
    def swap(path):
        for old, new in swaps:
            if path == old or path.startswith(old + os.sep):
                return new + path[len(old):]
        return path
    return swap


def destination_domain(domain, swaps, serial=None, volume_paths=None):
    """``domain`` (a config.GuestDomain of the migratable XML) as the destination
    runs it; changed in place and returned.

    ``swaps``: (source dir, destination dir) pairs, the instance directory
    and the image cache, applied to every host path the domain names;
    ``serial``: {'host', 'port'} where the destination's TCP serial console
    listens; ``volume_paths``: {source path: destination path} of the
    volumes the destination reaches by its own connection.
    """
    if serial:
        for char in domain.get_devices(vconfig.GuestCharDevice):
            if char.type == 'tcp' and char.source_mode == 'bind' and \
                    char.source_service:
                char.source_host = serial['host']
                char.source_service = str(serial['port'])
    for disk in domain.get_disks():
        if disk.source_path in (volume_paths or {}):
            disk.source_path = volume_paths[disk.source_path]
    domain.rewrite_paths(_swapper(swaps))
    # The destination reads the backing chain from its own images.
    for disk in domain.get_disks():
        disk.backing_store = None
    return domain


class LibvirtLiveMigrate:
    """Live migration, source and destination sides.

    The destination is another libvirt daemon (another machine, or a second
    daemon on this one: tools/start-libvirtd-peer.sh). Each host has its own
    instance directory; the guest's writable local disks are copied by
    QEMU while it runs (VIR_MIGRATE_NON_SHARED_INC onto empty overlays on
    the same base image), the read-only ones (config drive) as files.
    ``consoles`` (LibvirtConsoles) knows the serial ports guests here hold;
    ``vifs`` (vif.LibvirtVifs) plugs the guest's ports on the destination
    before it arrives and unplugs them where it left.
    """

    def __init__(self, core, consoles, vifs):
        self._core = core
        self._vifs = vifs
        self._consoles = consoles

    # -- both sides ---------------------------------------------------------------
    def live_migration_target(self, instance):
        """What the source needs to reach this host: daemon identity, URI, directory."""
        return {'host_uuid': self._core.host.get_capabilities().host_uuid,
                'connection_uri': self._core.host.uri,
                'instance_dir': self._core.instance_dir(instance),
                'base_dir': self._core.image_cache.base_dir, 'is_test': self._core.host.is_test,
                'machine_id': _machine_id(), 'serial': self._live_serial_endpoint(),
                'inbound_addr': self._core.conf.libvirt.live_migration_inbound_addr,
                'plug_site': self._vifs.plug_site()}

    def _live_serial_endpoint(self):
        """Where an arriving guest's TCP serial console listens here: a free port.

        Upstream's answer to its bug 1455252: the port the guest has on the
        source may be taken here (on one machine it always is, by the source's
        QEMU, while both run).
        """
        settings = self._core.settings.consoles
        if settings is None or not settings.serial_enabled:
            return None
        return {'host': settings.serial_host,
                'port': consoles.pick_serial_port(settings, self._consoles.used_serial_ports(),
                                                  from_top=True)}

    def check_live_migration_source(self, instance, target, block_device_info=None):
        """MigrationPreCheckError unless the guest can go live to ``target``."""
        mine = self.live_migration_target(instance)
        if (mine['host_uuid'], mine['connection_uri']) == \
                (target['host_uuid'], target['connection_uri']) or \
                (mine['host_uuid'] and mine['host_uuid'] == target['host_uuid']):
            raise exception.MigrationPreCheckError(
                reason='the source and destination hosts use one libvirt daemon (%s); '
                       'live migration needs a daemon per host'
                       % (mine['host_uuid'] or mine['connection_uri']))
        if target['is_test'] or self._core.host.is_test:
            raise exception.MigrationPreCheckError(
                reason="libvirt's test driver cannot live migrate a guest")
        guest = self._core.guest(instance)
        if not guest.is_active():
            raise exception.MigrationPreCheckError(
                reason='the guest of instance %s is not running' % instance.uuid)
        return {'source_dir': mine['instance_dir'], 'plug_site': mine['plug_site'],
                'disks': {os.path.basename(path): _disk_facts(path)
                          for _t, path in self._writable_local_disks(guest)}}

    def _writable_local_disks(self, guest):
        """[(target dev, path)] of the guest's writable disks in its instance directory."""
        return writable_local_disks(vconfig.GuestDomain.from_xml(guest.get_xml_desc()),
                                    os.path.join(self._core.instances_path, guest.uuid))

    # -- destination --------------------------------------------------------------
    def pre_live_migration(self, context, instance, source_dir, disks, network_info=None):
        """This host's instance directory: empty disks to copy into, the static
        files; then the guest's VIFs plugged here (``network_info``: as this
        host's bindings say; None: the instance's cache).

        ``disks``: {name: facts} of the files QEMU copies (writable local
        disks); each becomes an empty image of the same size (an overlay on
        this host's copy of the same base). Everything else is copied from ``source_dir``,
        which must be readable here (shared storage or one machine), as for a
        cold migration.
        """
        if not os.path.isdir(source_dir):
            raise exception.MigrationError(
                reason='the source host\'s instance directory %s is not reachable from '
                       'this host' % source_dir)
        inst_dir = self._core.instance_dir(instance)
        if os.path.exists(inst_dir):
            raise exception.MigrationError(
                reason='instance directory %s already exists on the destination' % inst_dir)
        os.makedirs(inst_dir)
        try:
            for name in sorted(os.listdir(source_dir)):
                src, dest = os.path.join(source_dir, name), os.path.join(inst_dir, name)
                if name in disks:
                    self._empty_copy_of(disks[name], dest)
                elif os.path.isfile(src) and (name in _STATIC or not name.startswith('disk')):
                    shutil.copy2(src, dest)
            self._vifs.plug(instance, self._vifs.network_info(instance, network_info))
        except Exception:
            shutil.rmtree(inst_dir, ignore_errors=True)
            raise

    def _empty_copy_of(self, facts, dest):
        size, fmt = str(facts['virtual_size']), facts['format'] or 'raw'
        try:
            if fmt == 'qcow2' and facts['backing']:
                backing_fmt = facts['backing_format'] or \
                    imagebackend.qemu_img_info(facts['backing'])['format']
                imagebackend.execute('qemu-img', 'create', '-q', '-f', 'qcow2', '-b',
                                     facts['backing'], '-F', backing_fmt, dest, size)
                imagebackend.rebase_on_cache(dest, self._core.image_cache.base_dir)
            else:
                imagebackend.execute('qemu-img', 'create', '-q', '-f', fmt, dest, size)
        except imagebackend.ProcessError as exc:
            raise exception.MigrationError(reason=exc.format_message())

    def connect_live_migration_volumes(self, instance, connection_infos):
        """Connect here the volumes the guest arrives with (their new attachments)."""
        for conn in connection_infos:
            libvirt_volume.get_volume_driver(conn).connect_volume(conn, instance)

    def disconnect_live_migration_volumes(self, instance, connection_infos):
        """Let go of volume connections this host no longer uses (best effort)."""
        for conn in connection_infos:
            try:
                libvirt_volume.get_volume_driver(conn).disconnect_volume(conn, instance)
            except exception.NovaException:
                LOG.exception('Could not disconnect a volume of %s', instance.uuid)

    def rollback_live_migration_at_destination(self, context, instance, network_info=None,
                                               source_site=None):
        """The move failed: no guest, no files and no VIF of it stay here
        (unless this host shares its taps with the source, ``source_site``)."""
        try:
            guest = self._core.host.get_guest(instance.uuid)
        except exception.InstanceNotFound:
            guest = None
        if guest is not None:
            guest.poweroff()
            guest.undefine()
        shutil.rmtree(self._core.instance_dir(instance), ignore_errors=True)
        if source_site is None or source_site != self._vifs.plug_site():
            self._vifs.unplug(instance, self._vifs.network_info(instance, network_info))

    # -- source -------------------------------------------------------------------
    def destination_xml(self, guest, target):
        """The guest's migratable XML with this host's paths swapped for ``target``'s."""
        flags = libvirt.VIR_DOMAIN_XML_MIGRATABLE | libvirt.VIR_DOMAIN_XML_SECURE
        domain = vconfig.GuestDomain.from_xml(guest.domain.XMLDesc(flags))
        swaps = ((os.path.join(self._core.instances_path, guest.uuid), target['instance_dir']),
                 (self._core.image_cache.base_dir, target['base_dir']))
        return destination_domain(domain, swaps, target.get('serial'),
                                  target.get('volume_paths')).to_xml(pretty_print=False)

    def live_migration(self, context, instance, target, progress=None):
        """Move the running guest to ``target`` (live_migration_target of the destination).

        Blocks until libvirt is done; ``progress(stats)`` is called with the
        job's counters while it runs. On success the guest runs (and is
        defined) on the destination and is undefined here; on failure it
        still runs here and MigrationError is raised.
        """
        guest = self._core.guest(instance)
        disks = self._writable_local_disks(guest)
        flags = (libvirt.VIR_MIGRATE_LIVE | libvirt.VIR_MIGRATE_PERSIST_DEST |
                 libvirt.VIR_MIGRATE_UNDEFINE_SOURCE)
        params = {libvirt.VIR_MIGRATE_PARAM_DEST_XML: self.destination_xml(guest, target)}
        addr = target.get('inbound_addr')
        if addr:
            uri_host = '[%s]' % addr if ':' in addr else addr
            params[libvirt.VIR_MIGRATE_PARAM_URI] = 'tcp://%s' % uri_host
            params[libvirt.VIR_MIGRATE_PARAM_LISTEN_ADDRESS] = addr
            if disks:
                params[libvirt.VIR_MIGRATE_PARAM_DISKS_URI] = 'tcp://%s' % uri_host
        if self._core.conf.libvirt.live_migration_bandwidth:
            params[libvirt.VIR_MIGRATE_PARAM_BANDWIDTH] = \
                self._core.conf.libvirt.live_migration_bandwidth
        if disks:
            flags |= libvirt.VIR_MIGRATE_NON_SHARED_INC
            params[libvirt.VIR_MIGRATE_PARAM_MIGRATE_DISKS] = [dev for dev, _p in disks]
        if target.get('volume_paths') and target.get('machine_id') and \
                target['machine_id'] == _machine_id():
            # Volume files both daemons open on one machine: the same file,
            # not a copy. libvirt only trusts shared file systems it knows
            # (NFS and the like, with cache=none) and would refuse a local one.
            flags |= libvirt.VIR_MIGRATE_UNSAFE
        try:
            dconn = libvirt.open(target['connection_uri'])
        except libvirt.libvirtError as exc:
            raise exception.MigrationError(
                reason='cannot reach the destination\'s libvirt daemon %s: %s'
                       % (target['connection_uri'], exc.get_error_message()))
        result = {}

        def run():
            try:
                guest.domain.migrate3(dconn, params, flags)
            except libvirt.libvirtError as exc:
                result['error'] = exc.get_error_message()

        # The client drives the migration (not peer-to-peer): both daemons need
        # only be reachable from this process, at the URIs this process uses.
        worker = threading.Thread(target=run, name='live-migrate-%s' % instance.uuid,
                                  daemon=True)
        try:
            worker.start()
            while worker.is_alive():
                worker.join(PROGRESS_INTERVAL)
                if progress is not None and worker.is_alive():
                    self._report_progress(guest, progress)
        finally:
            try:
                dconn.close()
            except libvirt.libvirtError:
                pass
        if 'error' in result:
            raise exception.MigrationError(reason=result['error'])

    def live_migration_abort(self, instance):
        """Ask libvirt to stop the migration job of the guest (it stays here)."""
        try:
            self._core.guest(instance).domain.abortJob()
        except libvirt.libvirtError as exc:
            raise exception.MigrationError(reason=exc.get_error_message())

    def live_migration_force_complete(self, instance):
        """Pause the guest (no more dirty memory) and lift the bandwidth cap: the move ends.

        The guest is resumed on the destination once it has arrived.
        """
        guest = self._core.guest(instance)
        guest.pause()
        try:
            guest.domain.migrateSetMaxSpeed(UNCAPPED_MIB_S, 0)
        except libvirt.libvirtError as exc:
            LOG.warning('Could not lift the bandwidth cap of %s: %s', instance.uuid,
                        exc.get_error_message())

    def live_migration_resume(self, instance):
        """Run the guest that arrived paused (force complete) on this host."""
        guest = self._core.guest(instance)
        if guest.domain.state()[0] == libvirt.VIR_DOMAIN_PAUSED:
            guest.resume()

    @staticmethod
    def _report_progress(guest, progress):
        try:
            stats = guest.domain.jobStats()
        except libvirt.libvirtError:
            return
        try:
            progress(stats)
        except Exception:  # noqa: BLE001 - progress is informative only.
            LOG.debug('Could not record migration progress', exc_info=True)

    def cleanup_after_live_migration(self, context, instance, target=None):
        """The guest runs elsewhere now: its files here go, and its VIFs unless
        the destination (``target``) shares this host's taps."""
        shutil.rmtree(self._core.instance_dir(instance), ignore_errors=True)
        if target is None or target.get('plug_site') != self._vifs.plug_site():
            self._vifs.unplug(instance, self._vifs.network_info(instance))

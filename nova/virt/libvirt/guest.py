"""One libvirt domain: lifecycle calls and power state, errors made uniform."""

import libvirt

from nova import exception, power_state

# libvirt's virDomainState -> Nova power state.  A guest that is blocked on
# I/O or in the middle of shutting down is still running as far as users
# are concerned.
LIBVIRT_POWER_STATE = {
    libvirt.VIR_DOMAIN_NOSTATE: power_state.NOSTATE,
    libvirt.VIR_DOMAIN_RUNNING: power_state.RUNNING,
    libvirt.VIR_DOMAIN_BLOCKED: power_state.RUNNING,
    libvirt.VIR_DOMAIN_PAUSED: power_state.PAUSED,
    libvirt.VIR_DOMAIN_SHUTDOWN: power_state.RUNNING,
    libvirt.VIR_DOMAIN_SHUTOFF: power_state.SHUTDOWN,
    libvirt.VIR_DOMAIN_CRASHED: power_state.CRASHED,
    libvirt.VIR_DOMAIN_PMSUSPENDED: power_state.SUSPENDED,
}

# Errors meaning "the thing you asked to stop is already stopped/gone".
_ALREADY_GONE = (libvirt.VIR_ERR_NO_DOMAIN, libvirt.VIR_ERR_OPERATION_INVALID)


class Guest:
    """Wraps a virDomain; every method maps libvirtError to Nova errors."""

    def __init__(self, domain):
        self._domain = domain

    def __repr__(self):
        return '<Guest %s %s>' % (self.name, self.uuid)

    @property
    def domain(self):
        return self._domain

    @property
    def uuid(self):
        return self._domain.UUIDString()

    @property
    def name(self):
        return self._domain.name()

    @property
    def id(self):
        return self._domain.ID()

    def launch(self, pause=False):
        """Start the defined domain (restores a managed save if present)."""
        flags = libvirt.VIR_DOMAIN_START_PAUSED if pause else 0
        try:
            self._domain.createWithFlags(flags)
        except libvirt.libvirtError as exc:
            # libvirt's test driver takes no start flags: start, then pause.
            if not pause or exc.get_error_code() not in (libvirt.VIR_ERR_INVALID_ARG,
                                                         libvirt.VIR_ERR_NO_SUPPORT):
                raise _error('start', self, exc)
            self._call('start', self._domain.create)
            self.pause()

    def poweroff(self, attempts=3):
        """Pull the plug; a domain that is not running is fine.

        QEMU can take longer than libvirt's SIGKILL grace period to exit
        (e.g. while flushing a big disk cache); libvirt then reports EBUSY
        and a retry succeeds, as upstream Nova found.
        """
        for attempt in range(attempts):
            try:
                self._domain.destroy()
                return
            except libvirt.libvirtError as exc:
                if exc.get_error_code() in _ALREADY_GONE:
                    return
                busy = (exc.get_error_code() == libvirt.VIR_ERR_SYSTEM_ERROR
                        and 'Device or resource busy' in str(exc))
                if not busy or attempt == attempts - 1:
                    raise _error('destroy', self, exc)

    def shutdown(self):
        """Ask the guest OS to shut down (ACPI); returns immediately."""
        self._call('shutdown', self._domain.shutdown)

    def pause(self):
        self._call('pause', self._domain.suspend)

    def resume(self):
        self._call('resume', self._domain.resume)

    def save_memory_state(self):
        """libvirt managed save: memory to disk, domain stops."""
        self._call('suspend', self._domain.managedSave, 0)

    def has_managed_save(self):
        return bool(self._call('query', self._domain.hasManagedSaveImage, 0))

    def undefine(self):
        """Remove the definition, its managed save image and UEFI NVRAM.

        A vTPM's state is never removed here: it lives in the instance
        directory (vtpm.py), which the driver keeps or deletes itself.
        """
        flags = (libvirt.VIR_DOMAIN_UNDEFINE_MANAGED_SAVE |
                 libvirt.VIR_DOMAIN_UNDEFINE_NVRAM |
                 libvirt.VIR_DOMAIN_UNDEFINE_KEEP_TPM)
        try:
            self._domain.undefineFlags(flags)
            return
        except libvirt.libvirtError as exc:
            code = exc.get_error_code()
            if code == libvirt.VIR_ERR_NO_DOMAIN:
                return
            # Drivers without NVRAM support (e.g. test:///) reject the flag.
            if code not in (libvirt.VIR_ERR_INVALID_ARG,
                            libvirt.VIR_ERR_NO_SUPPORT):
                raise _error('undefine', self, exc)
        try:
            self._domain.undefineFlags(
                libvirt.VIR_DOMAIN_UNDEFINE_MANAGED_SAVE)
        except libvirt.libvirtError as exc:
            if exc.get_error_code() != libvirt.VIR_ERR_NO_DOMAIN:
                raise _error('undefine', self, exc)

    def is_active(self):
        return bool(self._call('query', self._domain.isActive))

    def get_power_state(self):
        state = self._call('query', self._domain.state)[0]
        return LIBVIRT_POWER_STATE.get(state, power_state.NOSTATE)

    def get_info(self):
        """(power_state, max_mem_kib, mem_kib, vcpus, cpu_time_ns)."""
        state, max_mem, mem, vcpus, cpu_time = self._call(
            'query', self._domain.info)
        return (LIBVIRT_POWER_STATE.get(state, power_state.NOSTATE),
                max_mem, mem, vcpus, cpu_time)

    def get_xml_desc(self, inactive=False, secure=False):
        """Live XML, or with ``inactive`` the persistent definition;
        ``secure`` includes secrets (needed to redefine it verbatim)."""
        flags = libvirt.VIR_DOMAIN_XML_INACTIVE if inactive else 0
        if secure:
            flags |= libvirt.VIR_DOMAIN_XML_SECURE
        return self._call('query', self._domain.XMLDesc, flags)

    @staticmethod
    def _affect(live, config):
        flags = 0
        if live:
            flags |= libvirt.VIR_DOMAIN_AFFECT_LIVE
        if config:
            flags |= libvirt.VIR_DOMAIN_AFFECT_CONFIG
        return flags

    def attach_device(self, xml, live=False, config=True):
        """Hot-plug (``live``) and/or persist (``config``) a device."""
        self._call('attach device', self._domain.attachDeviceFlags, xml,
                   self._affect(live, config))

    def detach_device(self, xml, live=False, config=True):
        """Unplug (``live``; the guest may take its time) and/or drop
        from the persistent definition (``config``)."""
        self._call('detach device', self._domain.detachDeviceFlags, xml,
                   self._affect(live, config))

    def snapshot_disks_external(self, xml):
        """An external, disk-only snapshot into overlays that exist already
        (REUSE_EXT), with no snapshot metadata kept by libvirt."""
        flags = (libvirt.VIR_DOMAIN_SNAPSHOT_CREATE_DISK_ONLY |
                 libvirt.VIR_DOMAIN_SNAPSHOT_CREATE_REUSE_EXT |
                 libvirt.VIR_DOMAIN_SNAPSHOT_CREATE_NO_METADATA)
        self._call('disk snapshot', self._domain.snapshotCreateXML, xml, flags)

    def block_rebase(self, disk, base):
        """Pull the chain below the active file into it, down to ``base``
        (None: everything; the active file then stands alone)."""
        self._call('block rebase', self._domain.blockRebase, disk, base, 0, 0)

    def block_commit(self, disk, base, top):
        """Merge ``top`` (not the active file) down into ``base``."""
        self._call('block commit', self._domain.blockCommit, disk, base, top, 0, 0)

    def block_job_running(self, disk):
        return bool(self._call('block job query', self._domain.blockJobInfo, disk, 0))

    def block_job_abort(self, disk):
        self._call('block job abort', self._domain.blockJobAbort, disk, 0)

    def _call(self, action, func, *args):
        try:
            return func(*args)
        except libvirt.libvirtError as exc:
            raise _error(action, self, exc)


def _error(action, guest, exc):
    """NO_DOMAIN -> InstanceNotFound, anything else -> HypervisorError."""
    if exc.get_error_code() == libvirt.VIR_ERR_NO_DOMAIN:
        try:
            uuid = guest.uuid
        except libvirt.libvirtError:
            uuid = '?'
        return exception.InstanceNotFound(instance_id=uuid)
    return exception.HypervisorError(
        reason='%s of domain failed: %s' % (action, exc.get_error_message()))

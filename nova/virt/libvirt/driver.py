"""Libvirt compute driver: decides the guest's shape and drives libvirt."""

import json
import logging
import os
import shutil
import threading
import time

from nova import exception, power_state
from nova.virt import bus_table, configdrive, driver, image_verification
from nova.virt.libvirt import (
    blockinfo,
    config_caps,
    consoles,
    driver_consoles,
    driver_live_migrate,
    driver_password,
    driver_rescue,
    driver_resize,
    driver_volume_snapshots,
    driver_volumes,
    guestfeatures,
    imagebackend,
)
from nova.virt.libvirt import diagnostics as libvirt_diagnostics
from nova.virt.libvirt import driver_lifecycle as libvirt_lifecycle
from nova.virt.libvirt import host as libvirt_host
from nova.virt.libvirt import volume as libvirt_volume
from nova.virt.libvirt.guest_config import (  # noqa: F401 - re-exported
    CONFIG_DRIVE_DEVICE,
    CONSOLE_LOG,
    DEFAULT_CONSOLES,
    LOCAL_DISK_FORMATS,
    BootFiles,
    GuestSettings,
    config_drive_type,
    get_disk_mapping,
    get_guest_config,
    guest_disk,
    guest_disks,
    image_attr,
    instance_dir,
    kernel_cmdline,
    local_disk_format,
    machine_type_for,
    parse_machine_types,
    volume_connection_infos,
)

LOG = logging.getLogger(__name__)

GiB = 1024 ** 3

def _free_pages(conn, caps):
    """{cell: {size KiB: free}} for the huge page sizes the host has (``caps``:
    a config_caps.Capabilities), or None."""
    sizes = sorted((set(caps.page_sizes_kib) | {
        size for cell in caps.cells for size, _count in cell.pages}) - {4})
    if not caps.cells or not sizes:
        return None
    try:
        return conn.getFreePages(sizes, 0, len(caps.cells), 0)
    except Exception:  # noqa: BLE001 - page counts from capabilities still apply.
        return None


def cpu_info_json(caps, node_info):
    """The cpu_info text os-hypervisors reports (upstream's JSON shape)."""
    return json.dumps({
        'arch': caps.arch,
        'model': caps.cpu_model,
        'vendor': caps.cpu_vendor,
        'topology': {
            'cells': caps.numa_cells,
            'sockets': caps.sockets or node_info[5],
            'cores': caps.cores or node_info[6],
            'threads': caps.threads or node_info[7],
        },
        'features': sorted(caps.features),
    })


def read_tail(path, max_bytes):
    """Last ``max_bytes`` of a file; b'' if it does not exist yet."""
    try:
        with open(path, 'rb') as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - max_bytes))
            return f.read()
    except FileNotFoundError:
        return b''


# ----------------------------------------------------------------- the driver

class LibvirtDriver(driver_resize.ResizeMixin, driver_live_migrate.LiveMigrateMixin,
                    driver_volumes.VolumeMixin,
                    driver_volume_snapshots.VolumeSnapshotMixin,
                    driver_rescue.RescueMixin, libvirt_lifecycle.LifecycleMixin,
                    libvirt_diagnostics.DiagnosticsMixin, driver_consoles.ConsolesMixin,
                    driver_password.PasswordMixin,
                    driver.ComputeDriver):
    """ComputeDriver on libvirt (qemu:///system, or test:///default).

    ``conf`` is a ConfigOpts with the [DEFAULT] paths and [libvirt] groups
    registered; ``image_fetcher(context, image_id, dest_path)`` writes an
    image's bytes to a file; ``image_authorizer(context, image_id)`` raises
    ImageNotFound when the caller may not read an image the host has cached.
    ``host`` may be injected (tests).
    """

    capabilities = {
        'supports_pause': True,
        'supports_suspend': True,
        'supports_console_output': True,
        'supports_attach_volume': True,
        'supports_snapshot': True,
        # Set per instance in __init__: qemu/kvm only.
        'supports_stable_rescue': False,
        'supports_bfv_rescue': False,
    }

    def __init__(self, conf, image_fetcher, host=None, image_authorizer=None,
                 soft_reboot_wait=120, shutdown_poll_interval=0.1,
                 instances_path=None, nodename=None, placement_lock=None,
                 connection_uri=None):
        self.conf = conf
        self.virt_type = conf.libvirt.virt_type
        # connection_uri: an all-in-one extra compute host on a libvirtd of its own.
        self.host = host or libvirt_host.Host(libvirt_host.uri_for_virt_type(
            self.virt_type, connection_uri or conf.libvirt.connection_uri))
        # The all-in-one's extra compute hosts share the libvirtd: each keeps
        # its own instance directory and reports its own node name.
        self.instances_path = instances_path or conf.instances_path
        self.nodename = nodename
        self.image_cache = imagebackend.ImageCache(
            os.path.join(self.instances_path, '_base'), image_fetcher,
            authorize=image_authorizer)
        self.soft_reboot_wait = soft_reboot_wait
        self.shutdown_poll_interval = shutdown_poll_interval
        self._settings = None
        # Shared by drivers on one libvirtd in one process: a serial port or
        # host CPU is picked and taken by one spawn at a time across them all.
        self._placement_lock = placement_lock or threading.Lock()
        stable = self.virt_type in bus_table.STABLE_RESCUE_VIRT_TYPES
        # virt_type (and machine_type, in init_host) reach the node record,
        # where the API applies the static bus rules before accepting a boot.
        self.capabilities = dict(type(self).capabilities,
                                 supports_stable_rescue=stable,
                                 supports_bfv_rescue=stable,
                                 virt_type=self.virt_type)

    # --------------------------------------------------------------- host
    @property
    def domain_type(self):
        """libvirt's test driver only accepts its own domain type."""
        return 'test' if self.host.is_test else self.virt_type

    @property
    def settings(self):
        if self._settings is None:
            self._settings = self._build_settings()
        return self._settings

    def _build_settings(self):
        os.makedirs(self.instances_path, exist_ok=True)
        cachemode = self.conf.libvirt.disk_cachemode
        if not cachemode:
            cachemode = ('none' if imagebackend.supports_direct_io(
                self.instances_path) else 'writeback')
        return GuestSettings(
            domain_type=self.domain_type,
            arch=self.host.get_capabilities().arch,
            instances_path=self.instances_path,
            disk_cachemode=cachemode,
            machine_types=parse_machine_types(
                self.conf.libvirt.hw_machine_type),
            config_drive_format=self.conf.libvirt.config_drive_format,
            force_config_drive=self.conf.libvirt.force_config_drive,
            consoles=consoles.ConsoleSettings.from_conf(self.conf))

    def init_host(self, host):
        if self.virt_type == 'lxc':
            raise exception.HypervisorError(
                reason='virt_type=lxc is not implemented by this driver yet')
        self.host.get_connection()
        settings = self.settings
        machine = dict(settings.machine_types).get(settings.arch)
        if machine:
            self.capabilities['machine_type'] = machine
        self._report_rescue_disk_caps(machine)
        caps = self.host.get_capabilities()
        supported = {t for types in caps.guest_domain_types.values()
                     for t in types}
        if settings.domain_type not in supported:
            raise exception.HypervisorError(
                reason='%s cannot run %r guests (it offers: %s)'
                       % (self.host.uri, settings.domain_type,
                          ', '.join(sorted(supported)) or 'none'))

    def _report_rescue_disk_caps(self, machine):
        """The disk buses and devices this host's QEMU offers for its default
        machine type, in the node record: the API checks a stable-device
        rescue against them without asking the host."""
        if self.virt_type not in bus_table.STABLE_RESCUE_VIRT_TYPES:
            return
        caps = self._host_disk_caps(machine)
        if caps:
            self.capabilities['rescue_disk_buses'] = ','.join(caps.get('bus') or ())
            self.capabilities['rescue_disk_devices'] = ','.join(
                caps.get('diskDevice') or ())

    def cleanup_host(self, host):
        self.stop_lifecycle_events()
        self.host.close()

    def get_host_uptime(self):
        """What `uptime` prints, as upstream's libvirt driver answers os-hypervisors."""
        import subprocess
        out = subprocess.run(['uptime'], capture_output=True, text=True, check=False)
        return out.stdout.strip()

    def get_available_resource(self, nodename=None):
        node = self.host.get_node_info()
        caps = self.host.get_capabilities()
        infos = []
        for guest in self.host.list_guests(only_running=True):
            try:
                infos.append(guest.get_info())
            except exception.NotFound:
                # Gone since the listing (another host or user of the same
                # libvirtd deleted it): it uses nothing any more.
                continue
        stats = self.host.get_memory_stats_kib()
        if stats:
            # Node memory stats read /proc/meminfo; virNodeGetInfo may
            # count NUMA node memory only, which under-reports on VMs
            # with hot-plugged memory, so take both numbers from one place.
            memory_mb = stats['total'] // 1024
            avail = stats['free'] + stats.get('buffers', 0) + \
                stats.get('cached', 0)
            memory_used = (stats['total'] - avail) // 1024
        else:
            memory_mb = node[1]
            memory_used = sum(info[2] for info in infos) // 1024
        fs = os.statvfs(self.instances_path)
        return {
            'vcpus': node[2],
            'memory_mb': memory_mb,
            'local_gb': fs.f_blocks * fs.f_frsize // GiB,
            'vcpus_used': sum(info[3] for info in infos),
            'memory_mb_used': memory_used,
            'local_gb_used': (fs.f_blocks - fs.f_bfree) * fs.f_frsize // GiB,
            'hypervisor_type': self.host.get_hypervisor_type(),
            'hypervisor_version': self.host.get_hypervisor_version(),
            'hypervisor_hostname': self.nodename or self.host.get_hostname(),
            'cpu_info': cpu_info_json(caps, node),
            'hugepages': self._has_huge_pages(),
        }

    def _has_huge_pages(self):
        """Whether any huge page (> 4 KiB) is free for guests right now."""
        info = self.host_info()
        if info is None:
            return False
        return any(size > 4 and count > 0 for cell in info.cells
                   for size, count in cell.pages)

    # -------------------------------------------------------------- paths
    def get_instance_dir(self, instance):
        return os.path.join(self.instances_path, instance.uuid)

    def get_instance_disk_path(self, instance):
        return os.path.join(self.get_instance_dir(instance), 'disk')

    def get_console_log_path(self, instance):
        return os.path.join(self.get_instance_dir(instance), CONSOLE_LOG)

    # -------------------------------------------------------------- build
    def get_disk_mapping(self, instance, image_meta, block_device_info=None):
        return get_disk_mapping(self.virt_type, self.settings, instance,
                                image_meta, block_device_info)

    def get_device_names(self, instance, image_meta, block_device_info=None):
        """Device names spawn will use, to store back into the BDMs
        (blockinfo.get_device_names shape); raises Invalid on conflicts,
        without touching anything."""
        return blockinfo.get_device_names(
            self.get_disk_mapping(instance, image_meta, block_device_info))

    def get_guest_xml(self, instance, image_meta, disk_mapping=None,
                      boot_files=None, block_device_info=None, host_info=None):
        if disk_mapping is None:
            disk_mapping = self.get_disk_mapping(instance, image_meta,
                                                 block_device_info)
        return get_guest_config(self.settings, instance, image_meta,
                                disk_mapping, boot_files,
                                block_device_info, host_info,
                                serial_port=self.serial_port_for(instance)).to_xml()

    def _running_xmls(self):
        """Domain XML of running guests; one may vanish while we look (a
        concurrent delete), which must not fail this spawn."""
        xmls = []
        for guest in self.host.list_guests(True):
            try:
                xmls.append(guest.get_xml_desc())
            except exception.NotFound:
                continue
        return xmls

    def host_info(self):
        """Host facts for NUMA/pinning/huge pages, read fresh at each spawn
        (CPUs pinned by other guests and free pages change over time)."""
        if self.host.is_test:
            return None
        conn = self.host.get_connection()
        # One parse feeds both the host cells and the page sizes to count.
        caps = config_caps.Capabilities.from_xml(conn.getCapabilities())
        return guestfeatures.host_info_from_capabilities(
            caps, self.host.get_domain_capabilities(self.domain_type),
            pinned_cpus=guestfeatures.pinned_host_cpus(self._running_xmls()),
            free_pages=_free_pages(conn, caps))

    def spawn(self, context, instance, image_meta, injected_files,
              admin_password, allocations, network_info=None,
              block_device_info=None):
        disk_mapping = self.get_disk_mapping(instance, image_meta,
                                             block_device_info)
        inst_dir = self.get_instance_dir(instance)
        created_dir = not os.path.isdir(inst_dir)
        guest = None
        try:
            os.makedirs(inst_dir, exist_ok=True)
            if 'disk' in disk_mapping:
                self._create_root_disk(context, instance, image_meta)
            self._create_local_disks(instance, disk_mapping,
                                     block_device_info)
            if 'disk.config' in disk_mapping:
                self._create_config_drive(instance, injected_files,
                                          admin_password, network_info=network_info)
            self._connect_volumes(instance, block_device_info)
            boot_files = self._fetch_boot_files(context, instance,
                                                image_meta, disk_mapping)
            # One spawn at a time picks host CPUs and pages, so two guests
            # cannot pin the same CPU.
            with self._placement_lock:
                xml = self.get_guest_xml(instance, image_meta, disk_mapping,
                                         boot_files, block_device_info,
                                         host_info=self.host_info())
                guest = self.host.define_guest(xml)
                guest.launch()
        except Exception:
            # Leave nothing half-built: the manager can retry or reschedule.
            self._rollback_spawn(guest, inst_dir if created_dir else None)
            raise
        LOG.info('Spawned %s (%s)', instance.uuid, instance.name)

    def _create_root_disk(self, context, instance, image_meta):
        image_id = image_attr(image_meta, 'id') or instance.image_ref
        if not image_id:
            raise exception.InstanceDeployFailure(
                reason='no image to build the root disk from, and no '
                       'volume with boot_index 0')
        try:
            imagebackend.create_root_disk(
                context, self.image_cache, image_id,
                self.get_instance_disk_path(instance),
                instance.flavor.root_gb,
                image_attr(image_meta, 'disk_format'),
                verify=image_verification.verifier(self.conf, instance))
        except imagebackend.ProcessError as exc:
            raise exception.InstanceDeployFailure(
                reason=exc.format_message())

    def _create_local_disks(self, instance, disk_mapping, block_device_info):
        """Ephemeral and swap files, formatted when the host has the tools
        (see imagebackend.create_ephemeral_disk)."""
        bdi = block_device_info or {}
        inst_dir = self.get_instance_dir(instance)
        default_fs = self.conf.libvirt.default_ephemeral_format
        ephemerals = {e.get('num', 0): e for e in bdi.get('ephemerals') or ()}
        try:
            for name in disk_mapping:
                path = os.path.join(inst_dir, name)
                if name == 'disk.local':
                    imagebackend.create_ephemeral_disk(
                        self.image_cache, path, instance.flavor.ephemeral_gb,
                        default_fs, 'ephemeral0')
                elif name.startswith('disk.eph'):
                    num = int(name[8:])
                    eph = ephemerals[num]
                    # A mapping without a size takes the flavor's.
                    imagebackend.create_ephemeral_disk(
                        self.image_cache, path,
                        eph.get('size') or instance.flavor.ephemeral_gb,
                        eph.get('guest_format') or default_fs,
                        'ephemeral%d' % num)
                elif name == 'disk.swap':
                    swap = bdi.get('swap') or {}
                    imagebackend.create_swap_disk(
                        self.image_cache, path,
                        swap.get('swap_size') or instance.flavor.swap)
        except imagebackend.ProcessError as exc:
            raise exception.InstanceDeployFailure(
                reason=exc.format_message())

    def _create_config_drive(self, instance, injected_files, admin_password,
                             name='disk.config', network_info=None):
        # network_info None: the instance's network info cache.
        files = configdrive.metadata_files(instance, injected_files,
                                           admin_password, network_info=network_info,
                                           conf=self.conf)
        path = os.path.join(self.get_instance_dir(instance), name)
        configdrive.make_drive(files, path, self.settings.config_drive_format)
        return path

    def _connect_volumes(self, instance, block_device_info):
        for conn in volume_connection_infos(block_device_info).values():
            libvirt_volume.get_volume_driver(conn).connect_volume(conn,
                                                                  instance)

    def _disconnect_volumes(self, instance, block_device_info):
        for conn in volume_connection_infos(block_device_info).values():
            try:
                libvirt_volume.get_volume_driver(conn).disconnect_volume(
                    conn, instance)
            except exception.NovaException:
                LOG.exception('Could not disconnect a volume of %s',
                              instance.uuid)

    def _fetch_boot_files(self, context, instance, image_meta, disk_mapping):
        """Kernel/ramdisk images named by the image (AMI-style), or None."""
        props = image_meta.properties
        kernel_id = props.get('kernel_id') or getattr(instance, 'kernel_id',
                                                      None)
        if not kernel_id:
            return None
        ramdisk_id = props.get('ramdisk_id') or getattr(
            instance, 'ramdisk_id', None)
        inst_dir = self.get_instance_dir(instance)
        kernel = imagebackend.copy_from_cache(
            context, self.image_cache, kernel_id,
            os.path.join(inst_dir, 'kernel'))
        ramdisk = None
        if ramdisk_id:
            ramdisk = imagebackend.copy_from_cache(
                context, self.image_cache, ramdisk_id,
                os.path.join(inst_dir, 'ramdisk'))
        return BootFiles(kernel=kernel, ramdisk=ramdisk,
                         cmdline=kernel_cmdline(props, disk_mapping))

    def _rollback_spawn(self, guest, inst_dir):
        try:
            if guest is not None:
                guest.poweroff()
                guest.undefine()
        except exception.NovaException:
            LOG.exception('Could not remove the domain of a failed spawn')
        if inst_dir:
            shutil.rmtree(inst_dir, ignore_errors=True)

    # ------------------------------------------------------------ destroy
    def destroy(self, context, instance, network_info=None,
                block_device_info=None, destroy_disks=True):
        try:
            guest = self.host.get_guest(instance.uuid)
        except exception.InstanceNotFound:
            guest = None
        if guest is not None:
            guest.poweroff()
            guest.undefine()
        self._disconnect_volumes(instance, block_device_info)
        if destroy_disks:
            inst_dir = self.get_instance_dir(instance)
            try:
                shutil.rmtree(inst_dir)
            except FileNotFoundError:
                pass

    # -------------------------------------------------------------- power
    def _guest(self, instance):
        return self.host.get_guest(instance.uuid)

    def _wait_for_state(self, guest, state, timeout):
        """Poll until the guest reaches ``state``; False on timeout."""
        deadline = time.monotonic() + timeout
        while True:
            if guest.get_power_state() == state:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(self.shutdown_poll_interval)

    def _clean_shutdown(self, guest, timeout, retry_interval):
        """ACPI shutdown, re-sent every retry_interval; True if it worked."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if guest.get_power_state() != power_state.RUNNING:
                return guest.get_power_state() == power_state.SHUTDOWN
            try:
                guest.shutdown()
            except exception.HypervisorError:
                # Raced with the guest stopping by itself.
                pass
            wait = min(retry_interval or timeout,
                       max(0, deadline - time.monotonic()))
            if self._wait_for_state(guest, power_state.SHUTDOWN, wait):
                return True
        return guest.get_power_state() == power_state.SHUTDOWN

    def power_off(self, instance, timeout=0, retry_interval=0):
        try:
            guest = self._guest(instance)
        except exception.InstanceNotFound:
            return   # no domain is as off as it gets (upstream's _destroy)
        if timeout and self._clean_shutdown(guest, timeout, retry_interval):
            return
        guest.poweroff()

    def power_on(self, context, instance, network_info,
                 block_device_info=None, accel_info=None):
        guest = self._guest_or_recreate(context, instance, block_device_info)
        if not guest.is_active():
            guest.launch()

    def reboot(self, context, instance, network_info, reboot_type,
               block_device_info=None, bad_volumes_callback=None,
               accel_info=None):
        # A missing domain makes any reboot a hard one, as upstream.
        guest = self._guest_or_recreate(context, instance, block_device_info)
        if reboot_type == 'SOFT' and guest.is_active():
            if self._clean_shutdown(guest, self.soft_reboot_wait, 0):
                guest.launch()
                return
            LOG.info('Soft reboot of %s timed out; rebooting hard',
                     instance.uuid)
        guest.poweroff()
        guest.launch()

    def pause(self, instance):
        self._guest(instance).pause()

    def unpause(self, instance):
        self._guest(instance).resume()

    def suspend(self, context, instance):
        self._guest(instance).save_memory_state()

    def resume(self, context, instance, network_info,
               block_device_info=None):
        guest = self._guest(instance)
        if not guest.is_active():
            guest.launch()

    # -------------------------------------------------------------- query
    def get_info(self, instance, use_cache=True):
        guest = self._guest(instance)
        return driver.InstanceInfo(state=guest.get_power_state(),
                                   internal_id=guest.id)

    def list_instances(self):
        return self.host.list_instance_names()

    def list_instance_uuids(self):
        return self.host.list_instance_uuids()

    def get_console_output(self, context, instance):
        # Raise InstanceNotFound for unknown guests, like upstream.
        self._guest(instance)
        return read_tail(self.get_console_log_path(instance),
                         self.conf.libvirt.console_log_max_bytes)

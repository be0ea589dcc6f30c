"""What every part of the libvirt driver shares: the connection, paths, settings, image cache."""

import os

from nova.virt.libvirt import consoles, firmware, imagebackend
from nova.virt.libvirt.guest_config import CONSOLE_LOG, GuestSettings, parse_machine_types


class LibvirtCore:
    """The driver's shared state and the lookups every family uses.

    ``conf``: the ConfigOpts; ``host``: the libvirt connection (host.Host);
    ``instances_path``: where instance directories live on this host;
    ``image_cache``: imagebackend.ImageCache of the base images.
    """

    def __init__(self, conf, host, instances_path, image_cache):
        self.conf = conf
        self.virt_type = conf.libvirt.virt_type
        self.host = host
        self.instances_path = instances_path
        self.image_cache = image_cache
        self._settings = None

    @property
    def domain_type(self):
        """libvirt's test driver only accepts its own domain type."""
        return 'test' if self.host.is_test else self.virt_type

    @property
    def settings(self):
        """The GuestSettings, read from the host on first use."""
        if self._settings is None:
            self._settings = self._build_settings()
        return self._settings

    def _build_settings(self):
        os.makedirs(self.instances_path, exist_ok=True)
        cachemode = self.conf.libvirt.disk_cachemode
        if not cachemode:
            cachemode = ('none' if imagebackend.supports_direct_io(
                self.instances_path) else 'writeback')
        caps = self.host.get_capabilities()
        libvirt_conf = self.conf.libvirt
        return GuestSettings(
            domain_type=self.domain_type,
            arch=caps.arch,
            instances_path=self.instances_path,
            disk_cachemode=cachemode,
            machine_types=parse_machine_types(
                self.conf.libvirt.hw_machine_type),
            config_drive_format=self.conf.libvirt.config_drive_format,
            force_config_drive=self.conf.libvirt.force_config_drive,
            consoles=consoles.ConsoleSettings.from_conf(self.conf),
            cpu_mode=libvirt_conf.cpu_mode, cpu_models=tuple(libvirt_conf.cpu_models),
            cpu_flags=tuple(libvirt_conf.cpu_model_extra_flags),
            rng_dev_path=libvirt_conf.rng_dev_path,
            swtpm_enabled=libvirt_conf.swtpm_enabled,
            swtpm_user=libvirt_conf.swtpm_user, swtpm_group=libvirt_conf.swtpm_group,
            # test:/// runs no firmware: libvirt's own selection stands in.
            firmware=() if self.host.is_test else firmware.read_descriptors(),
            machine_aliases=dict((caps.machines or {}).get(caps.arch, {})))

    def guest(self, instance):
        """The instance's guest.Guest; InstanceNotFound when undefined."""
        return self.host.get_guest(instance.uuid)

    # ------------------------------------------------------------ paths
    def instance_dir(self, instance):
        return os.path.join(self.instances_path, instance.uuid)

    def instance_disk_path(self, instance):
        return os.path.join(self.instance_dir(instance), 'disk')

    def console_log_path(self, instance):
        return os.path.join(self.instance_dir(instance), CONSOLE_LOG)

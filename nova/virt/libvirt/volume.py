"""Volume drivers: turn a Cinder connection_info into a guest <disk>."""

import os

from nova import exception
from nova.virt import bus_table
from nova.virt.libvirt import config as vconfig

# Image formats QEMU may open a file volume as; anything else would make
# QEMU probe the content, which a guest controls.
FILE_FORMATS = ('raw', 'qcow2')


class VolumeDriver:
    """One driver_volume_type: connect on the host, describe to libvirt."""

    driver_volume_type = None

    def connect_volume(self, connection_info, instance):
        """Make the volume reachable from this host (no-op by default)."""

    def disconnect_volume(self, connection_info, instance):
        """Undo connect_volume (no-op by default)."""

    def get_config(self, connection_info, info, cachemode):
        """config.GuestDisk for the volume at disk info ``info``."""
        raise NotImplementedError()


class FileVolumeDriver(VolumeDriver):
    """driver_volume_type 'file': an image file on a filesystem this host
    mounts (the embedded volume service, NFS-style backends).

    ``data``: device_path (absolute), format ('raw' | 'qcow2'; raw when
    absent), access_mode ('rw' | 'ro'), volume_id.
    """

    driver_volume_type = 'file'

    @staticmethod
    def _data(connection_info):
        data = connection_info.get('data') or {}
        path = data.get('device_path')
        if not path or not os.path.isabs(path):
            raise exception.Invalid(
                reason='file volume connection_info needs an absolute '
                       'data.device_path, got %r' % path)
        fmt = data.get('format') or 'raw'
        if fmt not in FILE_FORMATS:
            raise exception.Invalid(
                reason='file volume format %r is not supported (use %s)'
                       % (fmt, ' or '.join(FILE_FORMATS)))
        return path, fmt, data

    def connect_volume(self, connection_info, instance):
        path = self._data(connection_info)[0]
        if not os.path.exists(path):
            raise exception.VolumeNotFound(volume_id=volume_id(
                connection_info) or path)

    def get_config(self, connection_info, info, cachemode):
        path, fmt, data = self._data(connection_info)
        return vconfig.GuestDisk(
            source_type='file', source_device=info['type'],
            driver_name='qemu', driver_format=fmt, driver_cache=cachemode,
            source_path=path, target_dev=info['dev'],
            target_bus=info['bus'], boot_order=info.get('boot_index'),
            readonly=(data.get('access_mode') == 'ro' or
                      bus_table.KIND_RULES[info['type']].readonly),
            # A multiattach volume is open in several guests at once.
            shareable=bool(connection_info.get('multiattach')),
            serial=volume_id(connection_info))


DRIVERS = {cls.driver_volume_type: cls() for cls in (FileVolumeDriver,)}


def volume_id(connection_info):
    return (connection_info.get('serial') or
            (connection_info.get('data') or {}).get('volume_id'))


def get_volume_driver(connection_info):
    """The driver for ``connection_info['driver_volume_type']``."""
    kind = (connection_info or {}).get('driver_volume_type')
    try:
        return DRIVERS[kind]
    except KeyError:
        raise exception.Invalid(
            reason='volume driver type %r is not supported by the libvirt '
                   'driver (supported: %s)' % (kind, ', '.join(sorted(
                       DRIVERS))))

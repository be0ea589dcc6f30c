"""Config drive: the metadata tree (from nova.metadata) written as an ISO 9660 or vfat image."""

import os
import shutil
import subprocess
import tempfile

from nova import exception
from nova.metadata import content, vendordata
from nova.metadata import options as content_options

LABEL = 'config-2'
FORMATS = ('iso9660', 'vfat')
# upstream's vfat config drive size
VFAT_SIZE = 64 * 1024 * 1024

# ISO 9660 writers, in order of preference; all take mkisofs arguments.
_ISO_TOOLS = (('xorriso', '-as', 'mkisofs'), ('genisoimage',), ('mkisofs',))


def required_by(instance, force=False):
    """True when the instance asked for a config drive (or config forces
    one).  ``instance.config_drive`` is 'True' or '' like upstream."""
    value = getattr(instance, 'config_drive', None)
    if isinstance(value, str):
        value = value.strip().lower() in ('true', '1', 'yes', 'on')
    return bool(value) or force


def metadata_files(instance, injected_files=(), admin_pass=None, network_info=None,
                   conf=None):
    """{relative path: bytes} of everything on the drive.

    The content is the metadata API's (nova/metadata/content.py); ``conf``
    supplies what configuration adds to it (the hostname's domain, vendor
    data); without it the drive carries the instance record alone.
    ``network_info`` defaults to the instance's network info cache.
    """
    options = content_options.ContentOptions.from_conf(conf) if conf is not None else None
    try:
        return content.InstanceContent(instance, options, network_info=network_info,
                                       admin_pass=admin_pass,
                                       injected_files=injected_files).drive_files()
    except vendordata.VendorDataUnavailable as exc:
        raise exception.InstanceDeployFailure(reason='config drive: %s' % exc) from exc


def _write_tree(files, root):
    for rel, data in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(data)


def _run(argv):
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise exception.InstanceDeployFailure(
            reason='config drive: %s failed (exit %d): %s'
                   % (argv[0], proc.returncode, proc.stderr.strip()))


def iso_tool():
    """argv prefix of the first ISO writer on PATH, or None."""
    for tool in _ISO_TOOLS:
        if shutil.which(tool[0]):
            return tool
    return None


def vfat_tools_present():
    return bool(shutil.which('mkfs.vfat') and shutil.which('mcopy'))


def make_drive(files, path, fmt='iso9660'):
    """Write ``files`` ({relative path: bytes}) as a config drive image.

    iso9660: label config-2, Joliet + Rock Ridge (xorriso, genisoimage or
    mkisofs).  vfat: a 64 MiB FAT image labelled config-2 (mkfs.vfat +
    mcopy from dosfstools/mtools; no mount, so no root or loop devices).
    """
    if fmt not in FORMATS:
        raise exception.Invalid(reason='config drive format %r is not one '
                                       'of %s' % (fmt, ', '.join(FORMATS)))
    with tempfile.TemporaryDirectory(prefix='cfgdrv-') as tmp:
        tree = os.path.join(tmp, 'tree')
        os.mkdir(tree)
        _write_tree(files, tree)
        part = path + '.part'
        try:
            if fmt == 'iso9660':
                tool = iso_tool()
                if tool is None:
                    raise exception.InstanceDeployFailure(
                        reason='config drive: no ISO 9660 writer (xorriso, '
                               'genisoimage or mkisofs) on this host')
                _run(list(tool) + ['-o', part, '-V', LABEL, '-J', '-r',
                                   '-quiet', tree])
            else:
                if not vfat_tools_present():
                    raise exception.InstanceDeployFailure(
                        reason='config drive: vfat needs mkfs.vfat '
                               '(dosfstools) and mcopy (mtools)')
                with open(part, 'wb') as f:
                    f.truncate(VFAT_SIZE)
                _run(['mkfs.vfat', '-n', LABEL, part])
                _run(['mcopy', '-o', '-s', '-i', part] +
                     [os.path.join(tree, name) for name in os.listdir(tree)]
                     + ['::/'])
            os.replace(part, path)
        finally:
            if os.path.exists(part):
                os.unlink(part)
    return path


def read_iso_label(path):
    """The ISO 9660 volume id (primary volume descriptor, sector 16)."""
    with open(path, 'rb') as f:
        f.seek(16 * 2048)
        pvd = f.read(72)
    if pvd[1:6] != b'CD001':
        return None
    return pvd[40:72].decode('ascii', 'replace').rstrip()

"""Instance disks: a cache of base images and qcow2 overlays, via qemu-img."""

import hashlib
import json
import logging
import os
import shutil
import sys
import uuid as uuidlib

from oslo_concurrency import lockutils, processutils

from nova import exception

LOG = logging.getLogger(__name__)

GiB = 1024 ** 3

# qemu-img parses untrusted images: cap its memory and CPU like upstream
# does, so a crafted header cannot exhaust the host.
QEMU_IMG_LIMITS = processutils.ProcessLimits(address_space=1 * GiB, cpu_time=30)

# Safety checks of the format inspector that only judge a partition table's
# tidiness, not what QEMU would open: a bare boot sector fails them (as in
# Glance's [image_format] gpt_safety_checks_nonfatal).
NONFATAL_CHECKS = {'gpt': {'mbr', 'gptmbr'}}
# What the inspector may call data that a raw image legitimately holds.
RAW_LIKE = {'raw', 'gpt', 'iso'}
# Run by path with -I: it imports nothing from nova (nor the working directory).
FORMAT_PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'format_probe.py')

# Base formats used as they are; anything else is converted to raw once.
DIRECT_FORMATS = ('raw', 'qcow2')

# Glance disk_format -> the name qemu-img reports for it.
QEMU_FORMAT_NAME = {
    'raw': 'raw', 'iso': 'raw', 'qcow2': 'qcow2', 'vmdk': 'vmdk',
    'vdi': 'vdi', 'vhd': 'vpc', 'vhdx': 'vhdx', 'ploop': 'parallels',
}


class ProcessError(exception.NovaException):
    msg_fmt = "Command %(cmd)s failed (exit %(code)s): %(stderr)s"


def execute(*cmd, limits=False):
    """Run a command, return its stdout; raise ProcessError on failure."""
    env = {'LC_ALL': 'C', 'PATH': os.environ.get('PATH', '/usr/sbin:/usr/bin:/sbin:/bin')}
    try:
        stdout, _stderr = processutils.execute(
            *cmd, env_variables=env, prlimit=QEMU_IMG_LIMITS if limits else None)
    except processutils.ProcessExecutionError as exc:
        raise ProcessError(cmd=' '.join(cmd), code=exc.exit_code,
                           stderr=(exc.stderr or '').strip())
    return stdout


def inspect_untrusted(image_id, path, disk_format=None):
    """Refuse an image that oslo.utils' format inspector finds unsafe.

    Runs before any qemu-img sees the file (upstream's answer to
    OSSA-2024-002): a qcow2 or VMDK that names other host files is refused
    without QEMU parsing it. The inspector runs in a child interpreter under
    the qemu-img limits (``format_probe.py``, about 0.2 s once per image
    fetched into the cache): the untrusted file is parsed outside the
    service, and the inspector's imports (cryptography) stay out of it.
    """
    out = execute(sys.executable, '-I', FORMAT_PROBE, path, limits=True)
    result = json.loads(out)
    if 'error' in result:
        raise exception.ImageUnacceptable(image_id=image_id, reason=result['error'])
    detected = result['format']
    for name in sorted(result['failures']):
        # As the inspector itself logs them when it runs in the service.
        LOG.warning('Safety check %s on %s failed because %s', name, detected,
                    result['failures'][name])
    fatal = set(result['failures']) - NONFATAL_CHECKS.get(detected, set())
    if fatal:
        raise exception.ImageUnacceptable(
            image_id=image_id, reason='the image failed the format safety checks: %s'
            % '; '.join(result['failures'][name] for name in sorted(fatal)))
    claimed = disk_format or detected
    if detected != claimed and not (claimed in ('raw', 'iso') and detected in RAW_LIKE):
        raise exception.ImageUnacceptable(
            image_id=image_id, reason='disk_format is %s but the data is %s'
                                      % (claimed, detected))
    return detected


def qemu_img_info(path, fmt=None):
    """``qemu-img info --output=json`` as a dict (limits applied)."""
    cmd = ['qemu-img', 'info', '--output=json']
    if fmt:
        cmd += ['-f', fmt]
    return json.loads(execute(*cmd, path, limits=True))


def check_image_safe(image_id, path, info, disk_format=None):
    """Refuse images that would make QEMU read other host files.

    A "raw" upload that is really a qcow2 with a backing file (or a data
    file, or VMDK extents) pointing at /etc/shadow is the classic attack.
    """
    detected = info.get('format')
    expected = QEMU_FORMAT_NAME.get(disk_format)
    if expected and detected != expected:
        raise exception.ImageUnacceptable(
            image_id=image_id,
            reason='disk_format is %s but the data is %s'
                   % (disk_format, detected))
    if info.get('backing-filename') or info.get('full-backing-filename'):
        raise exception.ImageUnacceptable(
            image_id=image_id, reason='images with a backing file are not '
                                      'accepted')
    specific = (info.get('format-specific') or {}).get('data') or {}
    if specific.get('data-file'):
        raise exception.ImageUnacceptable(
            image_id=image_id, reason='qcow2 images with an external data '
                                      'file are not accepted')
    for extent in specific.get('extents') or ():
        if extent.get('filename') not in (None, path):
            raise exception.ImageUnacceptable(
                image_id=image_id, reason='VMDK extents outside the image '
                                          'file are not accepted')


def cache_name(image_id):
    """Base file name: sha1 of the image id (upstream's _base naming)."""
    return hashlib.sha1(image_id.encode('utf-8')).hexdigest()


class CachedImage:
    """A base image in the cache: path, qemu format, virtual size."""

    __slots__ = ('path', 'format', 'virtual_size')

    def __init__(self, path, fmt, virtual_size):
        self.path = path
        self.format = fmt
        self.virtual_size = virtual_size

    def __repr__(self):
        return '<CachedImage %s %s %d>' % (self.path, self.format,
                                           self.virtual_size)


class ImageCache:
    """``<instances_path>/_base``: each image fetched once, shared read-only.

    ``fetcher(context, image_id, dest_path)`` writes the image bytes to
    ``dest_path``.  Downloads land in a unique temporary name and are
    renamed into place, so a concurrent process never sees half a file.
    ``authorize(context, image_id)`` raises ImageNotFound when the caller may
    not read the image: a cached file is shared by every project on the host,
    so each use is checked against the caller, as the download would be.
    """

    def __init__(self, base_dir, fetcher, authorize=None):
        self.base_dir = base_dir
        self._fetcher = fetcher
        self._authorize = authorize
        self._known = {}

    def _lock_for(self, image_id):
        # Per image, across threads and processes sharing the cache.
        return lockutils.lock(cache_name(image_id), lock_file_prefix='nova-base-',
                              external=True,
                              lock_path=os.path.join(os.path.dirname(self.base_dir), 'locks'))

    def path_for(self, image_id):
        return os.path.join(self.base_dir, cache_name(image_id))

    def get(self, context, image_id, disk_format=None, verify=None, authorized=False):
        """CachedImage for ``image_id``, fetching and checking it once.

        ``verify(context, image, path)``, when given, checks a fresh download
        (the fetcher's image dict and the downloaded file) before it enters
        the cache; an exception leaves nothing cached. ``authorized``: the
        compute API read this image's record as the requester for this very
        operation (a rescue image, passed over RPC), so a cached file needs
        no second look-up.
        """
        path = self.path_for(image_id)
        # Checked before the lock (no network call while holding it), and
        # under it when the file appeared meanwhile.
        checked = authorized or (os.path.exists(path) and
                                 self._check_access(context, image_id))
        cached = self._known.get(path)
        if checked and cached is not None and os.path.exists(path):
            # A file at its cache path is whole (downloads are renamed into
            # place) and nothing removes one: no lock to read it.
            return cached
        with self._lock_for(image_id):
            if not os.path.exists(path):
                self._fetch(context, image_id, path, disk_format, verify)
            elif not checked:
                self._check_access(context, image_id)
            cached = self._known.get(path)
            if cached is not None:
                return cached
            info = qemu_img_info(path)
            cached = CachedImage(path, info['format'], info['virtual-size'])
            self._known[path] = cached
            return cached

    def _check_access(self, context, image_id):
        """True once the caller may read ``image_id``; ImageNotFound otherwise."""
        if self._authorize is not None:
            try:
                self._authorize(context, image_id)
            except exception.ImageNotFound:
                LOG.info('Cached image %s refused: the caller may not read it', image_id)
                raise
        return True

    def _fetch(self, context, image_id, path, disk_format, verify=None):
        os.makedirs(self.base_dir, exist_ok=True)
        part = '%s.part-%s' % (path, uuidlib.uuid4().hex)
        try:
            image = self._fetcher(context, image_id, part)
            if verify is not None:
                # The signed bytes are the image service's, before any conversion.
                verify(context, image or {}, part)
            inspect_untrusted(image_id, part, disk_format)
            # Probe once, then pin the format: never let QEMU probe again.
            info = qemu_img_info(part)
            check_image_safe(image_id, part, info, disk_format)
            if info['format'] not in DIRECT_FORMATS:
                raw = part + '.raw'
                execute('qemu-img', 'convert', '-f', info['format'],
                        '-O', 'raw', part, raw)
                os.replace(raw, part)
            os.chmod(part, 0o644)
            os.replace(part, path)
        except ProcessError as exc:
            raise exception.ImageUnacceptable(image_id=image_id,
                                              reason=exc.format_message())
        finally:
            for leftover in (part, part + '.raw'):
                if os.path.exists(leftover):
                    os.unlink(leftover)
        LOG.info('Cached image %s as %s', image_id, path)


def create_qcow2_overlay(base, dest, size_bytes=None):
    """qcow2 ``dest`` backed by ``base`` (a CachedImage), optionally larger.

    The backing format is always given explicitly so QEMU never probes the
    base image. An empty overlay holds nothing but its header (backing file,
    backing format, size), so one is made per base and size with qemu-img and
    copied from then on: a file copy instead of a process per disk.
    """
    template = _overlay_template(base, size_bytes)
    part = '%s.part-%s' % (dest, uuidlib.uuid4().hex)
    try:
        shutil.copyfile(template, part)
        os.replace(part, dest)
    finally:
        if os.path.exists(part):
            os.unlink(part)


def _overlay_template(base, size_bytes):
    """The empty overlay of ``base`` at ``size_bytes``, made once beside the base."""
    key = hashlib.sha1(('%s|%s|%s' % (base.path, base.format, size_bytes or ''))
                       .encode('utf-8')).hexdigest()
    directory = os.path.join(os.path.dirname(base.path), 'overlays')
    template = os.path.join(directory, key)
    if os.path.exists(template):
        return template
    os.makedirs(directory, exist_ok=True)
    part = '%s.part-%s' % (template, uuidlib.uuid4().hex)
    cmd = ['qemu-img', 'create', '-q', '-f', 'qcow2', '-b', base.path, '-F', base.format,
           part]
    if size_bytes:
        cmd.append(str(size_bytes))
    try:
        execute(*cmd)
        # Read-only: a template must never be written through.
        os.chmod(part, 0o444)
        os.replace(part, template)
    finally:
        if os.path.exists(part):
            os.unlink(part)
    return template


def root_disk_size(image_id, base, root_gb):
    """Bytes for the root overlay: flavor root_gb, or the image's own size.

    root_gb == 0 means "as big as the image" (upstream semantics).
    """
    if not root_gb:
        return None
    size = root_gb * GiB
    if size < base.virtual_size:
        raise exception.ImageUnacceptable(
            image_id=image_id,
            reason='flavor root disk (%d GiB) is smaller than the image '
                   'virtual size (%d bytes)' % (root_gb, base.virtual_size))
    return size if size > base.virtual_size else None


def create_root_disk(context, cache, image_id, dest, root_gb,
                     disk_format=None, verify=None, authorized=False):
    """Fetch (once) the image and build the instance's root overlay."""
    base = cache.get(context, image_id, disk_format, verify=verify, authorized=authorized)
    create_qcow2_overlay(base, dest, root_disk_size(image_id, base, root_gb))
    return base


def copy_from_cache(context, cache, image_id, dest):
    """Kernel/ramdisk: a private copy in the instance directory."""
    base = cache.get(context, image_id)
    shutil.copyfile(base.path, dest)
    return dest


def supports_direct_io(dirpath):
    """Whether files in ``dirpath`` can be opened O_DIRECT (tmpfs cannot),
    which decides if cache='none' is usable."""
    if not hasattr(os, 'O_DIRECT'):
        return False
    probe = os.path.join(dirpath, '.directio.test.%s' % uuidlib.uuid4().hex)
    try:
        fd = os.open(probe, os.O_CREAT | os.O_WRONLY | os.O_DIRECT, 0o600)
    except OSError:
        return False
    os.close(fd)
    os.unlink(probe)
    return True


# ----------------------------------------------------- ephemeral and swap

# mkfs command per guest filesystem; the label is appended.  A filesystem
# whose tool is absent on the host gets an unformatted disk (logged),
# which cloud-init formats on first boot anyway.
MKFS = {
    'ext2': ('mkfs.ext2', '-F', '-q', '-L'),
    'ext3': ('mkfs.ext3', '-F', '-q', '-L'),
    'ext4': ('mkfs.ext4', '-F', '-q', '-L'),
    'xfs': ('mkfs.xfs', '-f', '-q', '-L'),
    'vfat': ('mkfs.vfat', '-n'),
    'ntfs': ('mkfs.ntfs', '-F', '-Q', '-q', '-L'),
}
# Formats meaning "leave it blank".
NO_FS = (None, '', 'none', 'unformatted')


def can_format(fs):
    """True when this host has the tool to make ``fs`` (None: nothing)."""
    if fs in NO_FS:
        return False
    tool = MKFS.get(fs)
    return tool is not None and shutil.which(tool[0]) is not None


def _generated_base(cache, name, size_bytes, prepare):
    """A raw file in the cache made once by ``prepare(path)``; returns a
    CachedImage.  Formatting runs once per (size, filesystem, label)."""
    path = os.path.join(cache.base_dir, name)
    with cache._lock_for(name):
        if not os.path.exists(path):
            os.makedirs(cache.base_dir, exist_ok=True)
            part = '%s.part-%s' % (path, uuidlib.uuid4().hex)
            try:
                with open(part, 'wb') as f:
                    f.truncate(size_bytes)
                prepare(part)
                os.chmod(part, 0o644)
                os.replace(part, path)
            finally:
                if os.path.exists(part):
                    os.unlink(part)
    return CachedImage(path, 'raw', size_bytes)


def create_blank_disk(dest, size_bytes):
    execute('qemu-img', 'create', '-q', '-f', 'qcow2', dest, str(size_bytes))


def create_ephemeral_disk(cache, dest, size_gb, fs=None, label='ephemeral0'):
    """qcow2 ephemeral disk of ``size_gb``; formatted with ``fs`` over a
    shared formatted base when the host can, else blank.  Returns the
    filesystem actually made (None when blank)."""
    if not size_gb or size_gb < 0:
        raise exception.InstanceDeployFailure(
            reason='ephemeral disk %s has no size' % os.path.basename(dest))
    size = size_gb * GiB
    if not can_format(fs):
        if fs not in NO_FS:
            LOG.warning('No %s tool on this host: ephemeral disk %s is '
                        'left unformatted', fs, dest)
        create_blank_disk(dest, size)
        return None
    label = label[:11] if fs == 'vfat' else label[:16]
    base = _generated_base(
        cache, 'ephemeral_%d_%s_%s' % (size_gb, fs, label), size,
        lambda path: execute(*(MKFS[fs] + (label, path))))
    create_qcow2_overlay(base, dest)
    return fs


def create_swap_disk(cache, dest, size_mb):
    """qcow2 swap disk of ``size_mb`` MiB, over a shared mkswap'd base when
    mkswap exists, else blank.  Returns True when it carries a swap
    signature."""
    size = size_mb * 1024 * 1024
    if shutil.which('mkswap') is None:
        LOG.warning('No mkswap on this host: swap disk %s is left blank',
                    dest)
        create_blank_disk(dest, size)
        return False
    base = _generated_base(
        cache, 'swap_%d' % size_mb, size,
        lambda path: execute('mkswap', '-L', 'swap0', path))
    create_qcow2_overlay(base, dest)
    return True


def convert_to_qcow2(src, src_format, dest, force_share=False):
    """A standalone qcow2 copy of ``src`` (flattens backing chains).

    ``force_share`` (-U) reads an image a running QEMU holds open; the copy
    is then crash-consistent, like pulling the power.
    """
    cmd = ['qemu-img', 'convert', '-q', '-f', src_format, '-O', 'qcow2']
    if force_share:
        cmd.append('-U')
    part = '%s.part-%s' % (dest, uuidlib.uuid4().hex)
    try:
        execute(*(cmd + [src, part]))
        os.replace(part, dest)
    finally:
        if os.path.exists(part):
            os.unlink(part)
    return dest


def link_or_copy(src, dest):
    """Hard link ``src`` to ``dest`` (same filesystem), else copy it."""
    try:
        os.link(src, dest)
    except OSError:
        shutil.copyfile(src, dest)
    return dest


def rebase_on_cache(path, base_dir):
    """Point the qcow2 overlay ``path`` at its base image in the image cache
    ``base_dir`` (linked or copied there when this host lacks it)."""
    info = qemu_img_info(path)
    backing = info.get('full-backing-filename') or info.get('backing-filename')
    if info.get('format') != 'qcow2' or not backing:
        return
    own = os.path.join(base_dir, os.path.basename(backing))
    if os.path.abspath(backing) == own:
        return
    if not os.path.exists(own):
        if not os.path.exists(backing):
            raise exception.MigrationError(
                reason='the base image %s of %s is not reachable from this host'
                       % (backing, os.path.basename(path)))
        os.makedirs(base_dir, exist_ok=True)
        part = '%s.part-%d' % (own, os.getpid())
        link_or_copy(backing, part)
        os.replace(part, own)
    fmt = info.get('backing-filename-format') or qemu_img_info(own)['format']
    try:
        execute('qemu-img', 'rebase', '-u', '-f', 'qcow2', '-b', own, '-F', fmt, path)
    except ProcessError as exc:
        raise exception.MigrationError(reason=exc.format_message())

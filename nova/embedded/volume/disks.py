"""qemu-img operations behind the embedded volume service: create, convert, resize, inspect."""

import json
import os
import subprocess

GiB = 1024 ** 3
# Image formats a volume may be created from. Others (vmdk, vhd, ...) can
# name extra files (extents, data files) and are refused rather than
# audited; convert them in the image service first.
IMAGE_FORMATS = ('raw', 'qcow2')
VOLUME_FORMATS = ('qcow2', 'raw')
# Glance disk formats whose data is a plain byte image of a disk.
_RAW_LIKE = ('raw', 'iso')


class DiskError(Exception):
    """qemu-img failed or refused the file."""


def _run(*args):
    # LC_ALL=C keeps qemu-img's messages stable for logs and tests.
    env = dict(os.environ, LC_ALL='C')
    try:
        proc = subprocess.run(('qemu-img',) + args, capture_output=True,
                              text=True, env=env, check=False)
    except OSError as exc:
        raise DiskError('cannot run qemu-img: %s' % exc) from exc
    if proc.returncode != 0:
        raise DiskError('qemu-img %s failed: %s'
                        % (args[0], proc.stderr.strip() or proc.returncode))
    return proc.stdout


def info(path, fmt=None, force_share=False):
    """``qemu-img info`` as a dict; ``fmt`` None lets qemu-img probe."""
    args = ['info', '--output=json']
    if fmt:
        args += ['-f', fmt]
    if force_share:
        args.append('-U')
    return json.loads(_run(*args, path))


def create(path, fmt, size_gb):
    _run('create', '-q', '-f', fmt, path, '%dG' % size_gb)


def convert(src, src_fmt, dst, dst_fmt, force_share=False):
    """Copy ``src`` into a new ``dst``; -U reads a disk a guest holds open."""
    args = ['convert', '-q', '-f', src_fmt, '-O', dst_fmt]
    if force_share:
        args.append('-U')
    _run(*args, src, dst)


def grow(path, fmt, size_gb):
    """Make the disk ``size_gb`` GiB if it is smaller; never shrink."""
    if info(path, fmt)['virtual-size'] < size_gb * GiB:
        _run('resize', '-q', '-f', fmt, path, '%dG' % size_gb)


def inspect_image(path, declared_format=None):
    """Check downloaded image data; returns (format, virtual size in bytes).

    A declared raw image is read as raw whatever its bytes look like, so a
    guest-written qcow2 header cannot make qemu-img follow a backing file.
    A declared or probed qcow2 image must stand alone (no backing or
    external data file). Raises DiskError when the image is unusable.
    """
    if declared_format in _RAW_LIKE:
        return 'raw', os.path.getsize(path)
    if declared_format is not None and declared_format not in IMAGE_FORMATS:
        raise DiskError('image disk format %s is not supported; use one of '
                        '%s' % (declared_format, ', '.join(IMAGE_FORMATS)))
    details = info(path)
    fmt = details.get('format')
    if declared_format is not None and fmt != declared_format:
        raise DiskError('image data is %s but the image says %s'
                        % (fmt, declared_format))
    if fmt not in IMAGE_FORMATS:
        raise DiskError('image data format %s is not supported; use one of '
                        '%s' % (fmt, ', '.join(IMAGE_FORMATS)))
    if details.get('backing-filename') or details.get('full-backing-filename'):
        raise DiskError('image has a backing file')
    specific = (details.get('format-specific') or {}).get('data') or {}
    if specific.get('data-file'):
        raise DiskError('image has an external data file')
    return fmt, details['virtual-size']

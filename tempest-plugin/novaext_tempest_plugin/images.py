"""Test images built on the spot: boot media that print a marker to COM1, and a kernel initrd.

Nothing is downloaded: a 512-byte x86 boot sector (in a disk with an MBR
partition table, so image services with format inspection accept it), the
same sector as a 1.44 MB floppy or an El Torito CD (xorriso), and a busybox
initrd whose /init reports the kernel command line and NUMA nodes.
"""

import gzip
import io
import os
import shutil
import stat
import struct
import subprocess
import tempfile

SECTOR = 512
MiB = 1024 * 1024
FLOPPY_SIZE = 1474560
_LOAD = 0x7C00

# Real-mode code: set up segments and stack, then write the NUL-terminated
# message that follows the code to the COM1 data port, then halt forever.
_HEAD = bytes([0xFA, 0x31, 0xC0, 0x8E, 0xD8, 0x8E, 0xD0, 0xBC, 0x00, 0x7C, 0xFC])
_PRINT = bytes([0xBA, 0xF8, 0x03, 0xAC, 0x84, 0xC0, 0x74, 0x03, 0xEE, 0xEB, 0xF8,
                0xFA, 0xF4, 0xEB, 0xFC])
_CODE = len(_HEAD) + 3 + len(_PRINT)
# The partition table starts at byte 446: code and message stay before it.
MAX_MESSAGE = 446 - _CODE - 1


def boot_sector(message, partition_sectors=0):
    """512 bytes printing ``message`` (ASCII); with one partition entry if asked."""
    data = message.encode('ascii')
    if b'\0' in data or len(data) > MAX_MESSAGE:
        raise ValueError('at most %d ASCII characters without NUL' % MAX_MESSAGE)
    code = _HEAD + bytes([0xBE]) + struct.pack('<H', _LOAD + _CODE) + _PRINT + data + b'\0'
    table = b''
    if partition_sectors:
        # One Linux partition from LBA 1 to the end (CHS fields unused: 0xFE..).
        table = struct.pack('<B3sB3sII', 0, b'\x00\x02\x00', 0x83, b'\xfe\xff\xff', 1,
                            partition_sectors)
    return code.ljust(446, b'\0') + table.ljust(64, b'\0') + b'\x55\xAA'


def write_disk(path, message, size=MiB):
    """A raw disk image of ``size`` bytes that boots to ``message``."""
    with open(path, 'wb') as handle:
        handle.write(boot_sector(message, size // SECTOR - 1))
        handle.truncate(size)
    return path


def write_floppy(path, message):
    """A 1.44 MB floppy image (no partition table on floppies) booting to ``message``."""
    with open(path, 'wb') as handle:
        handle.write(boot_sector(message))
        handle.truncate(FLOPPY_SIZE)
    return path


def iso_tool():
    """The command that can build an ISO, or None."""
    for name in ('xorriso', 'genisoimage', 'mkisofs'):
        if shutil.which(name):
            return name
    return None


def write_iso(path, message):
    """An El Torito no-emulation CD whose boot image is the boot sector."""
    tool = iso_tool()
    if tool is None:
        raise RuntimeError('building a rescue CD needs xorriso, genisoimage or mkisofs')
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, 'boot.img'), 'wb') as handle:
            handle.write(boot_sector(message).ljust(2048, b'\0'))
        args = ['-quiet', '-V', 'RESCUE', '-b', 'boot.img', '-no-emul-boot',
                '-boot-load-size', '4', '-o', str(path), tmp]
        cmd = ['xorriso', '-as', 'mkisofs'] + args if tool == 'xorriso' else [tool] + args
        subprocess.run(cmd, check=True, capture_output=True)
    return path


# ----------------------------------------------------------- kernel guest

DONE = 'NOVAEXT-GUEST-DONE'
INIT = """#!/bin/sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
exec >/dev/ttyS0 2>&1
echo "CMDLINE: $(cat /proc/cmdline)"
echo "NODES: $(ls /sys/devices/system/node | grep '^node' | tr '\\n' ' ')"
echo "%s"
poweroff -f
""" % DONE


def _cpio(entries):
    """A newc archive of (name, mode, data, (rdev major, minor)) entries."""
    out = io.BytesIO()
    for ino, (name, mode, data, rdev) in enumerate(entries + [('TRAILER!!!', 0, b'', (0, 0))],
                                                   start=1):
        name_b = name.encode() + b'\0'
        fields = (ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name_b), 0)
        header = b'070701' + b''.join(b'%08X' % f for f in fields)
        out.write(header + name_b + b'\0' * (-(len(header) + len(name_b)) % 4))
        out.write(data + b'\0' * (-len(data) % 4))
    return out.getvalue()


def write_initrd(path, busybox_path):
    """A gzip'd initrd: busybox and an /init that reports to ttyS0 and powers off."""
    with open(busybox_path, 'rb') as handle:
        busybox = handle.read()
    directory = stat.S_IFDIR | 0o755
    entries = [('bin', directory, b'', (0, 0)), ('dev', directory, b'', (0, 0)),
               ('proc', directory, b'', (0, 0)), ('sys', directory, b'', (0, 0)),
               # The kernel opens the console before /init runs.
               ('dev/console', stat.S_IFCHR | 0o600, b'', (5, 1)),
               ('dev/ttyS0', stat.S_IFCHR | 0o600, b'', (4, 64)),
               ('bin/busybox', stat.S_IFREG | 0o755, busybox, (0, 0)),
               ('bin/sh', stat.S_IFLNK | 0o777, b'busybox', (0, 0)),
               ('init', stat.S_IFREG | 0o755, INIT.encode(), (0, 0))]
    with open(path, 'wb') as handle:
        handle.write(gzip.compress(_cpio(entries), mtime=0))
    return path


def parse_report(console):
    """{'CMDLINE': str, 'NODES': [..]} from the guest's console output."""
    report = {}
    for line in console.splitlines():
        key, sep, value = line.partition(': ')
        if sep and key in ('CMDLINE', 'NODES'):
            report[key] = value.strip()
    if 'NODES' in report:
        report['NODES'] = report['NODES'].split()
    return report

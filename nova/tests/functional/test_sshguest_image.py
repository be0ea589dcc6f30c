"""The SSH guest's disk image: deterministic, a real MBR + FAT + SYSLINUX disk, sane scripts."""

import gzip
import os
import shutil
import struct
import subprocess

import pytest

from nova.tests.fixtures import kernelguest, sshguest


@pytest.fixture(scope='module')
def cache():
    try:
        return sshguest.check_cache()
    except kernelguest.KernelUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope='module')
def image(cache, tmp_path_factory):
    return sshguest.write_disk_image(str(tmp_path_factory.mktemp('img') / 'a.img'), cache)


def test_same_inputs_same_bytes(cache, image, tmp_path):
    again = sshguest.write_disk_image(str(tmp_path / 'b.img'), cache)
    with open(image, 'rb') as a, open(again, 'rb') as b:
        assert a.read() == b.read()
    assert os.path.getsize(image) == sshguest.IMAGE_SIZE


def test_mbr_has_one_active_fat_partition_and_syslinux_code(cache, image):
    with open(image, 'rb') as f:
        mbr = f.read(512)
        f.seek(sshguest.PART_START * 512)
        vbr = f.read(512)
    assert mbr[510:] == b'\x55\xaa'
    with open(os.path.join(cache, 'syslinux', 'mbr.bin'), 'rb') as f:
        code = f.read()[:440]
    assert mbr[:len(code)] == code
    status, ptype, start, sectors = struct.unpack('<B3xB3xII', mbr[446:462])
    assert (status, ptype, start) == (0x80, 0x0E, sshguest.PART_START)
    assert start + sectors == sshguest.IMAGE_SIZE // 512
    assert mbr[462:510] == b'\0' * 48
    # The FAT boot sector: hidden sectors = where it starts, SYSLINUX's boot code.
    assert vbr[510:] == b'\x55\xaa'
    assert struct.unpack('<I', vbr[28:32])[0] == sshguest.PART_START
    assert vbr[43:54] == sshguest.LABEL.ljust(11).encode()
    assert b'SYSLINUX' in vbr


def test_partition_holds_the_boot_files(image):
    if shutil.which('mdir') is None:
        pytest.skip('mtools not installed')
    listing = subprocess.run(['mdir', '-a', '-b', '-i', '%s@@%d' % (
        image, sshguest.PART_START * 512), '::/'], capture_output=True, text=True,
        check=True, env=dict(os.environ, MTOOLS_SKIP_CHECK='1')).stdout.lower().split()
    for name in ('::/vmlinuz', '::/initrd.img', '::/syslinux.cfg', '::/ldlinux.sys',
                 '::/ldlinux.c32', '::/tmp/'):
        assert name in listing, listing


def _initrd_files(cache):
    archive = gzip.decompress(sshguest.initrd_bytes(cache))
    files, pos = {}, 0
    while True:
        header = archive[pos:pos + 110]
        fields = [int(header[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = fields[1], fields[6], fields[11]
        name_start = pos + 110
        name = archive[name_start:name_start + namesize - 1].decode()
        data_start = name_start + namesize + (-(110 + namesize) % 4)
        if name == 'TRAILER!!!':
            return files
        files[name] = (mode, archive[data_start:data_start + size])
        pos = data_start + size + (-size % 4)


def test_initrd_scripts_parse_and_everything_is_there(cache, tmp_path):
    files = _initrd_files(cache)
    assert files['init'][1] == b'bin/busybox'
    for name in ('sbin/dropbear', 'lib/libc.so.6', 'lib/ld-linux-x86-64.so.2',
                 'bin/sudo', 'bin/curl', 'bin/lsblk', 'bin/blkid', 'bin/mkfs'):
        assert name in files, name
    for module in sshguest.MODULES:
        assert 'lib/modules/%s.ko' % module in files
    busybox = os.path.join(cache, 'busybox')
    scripts = [n for n, (_mode, data) in files.items() if data.startswith(b'#!/bin/sh')]
    assert len(scripts) >= 10
    for name in scripts:
        path = tmp_path / name.replace('/', '_')
        path.write_bytes(files[name][1])
        check = subprocess.run([busybox, 'sh', '-n', str(path)], capture_output=True,
                               text=True, check=False)
        assert check.returncode == 0, (name, check.stderr)


def test_lsblk_shim_prints_what_tempest_parses(cache, tmp_path):
    """tempest's get_disks() keeps lines whose TYPE column, aligned with the header's,
    says "disk"; the shim prints util-linux's columns from /sys/block."""
    if not [d for d in os.listdir('/sys/block') if not d.startswith(('loop', 'ram'))]:
        pytest.skip('no block device on this host to list')
    shim = tmp_path / 'lsblk'
    shim.write_text(sshguest.SHIMS['lsblk'])
    out = subprocess.run([os.path.join(cache, 'busybox'), 'sh', str(shim), '-lb',
                          '--nodeps'], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    pos = lines[0].find('TYPE')
    assert lines[0].split() == ['NAME', 'MAJ:MIN', 'RM', 'SIZE', 'RO', 'TYPE', 'MOUNTPOINT']
    disks = [line for line in lines[1:] if line[pos:pos + 4] == 'disk']
    assert disks
    for line in disks:
        name, majmin, _rm, size = line.split()[:4]
        assert os.path.exists('/sys/block/%s' % name)
        assert int(size) == int(open('/sys/block/%s/size' % name).read()) * 512
        assert ':' in majmin


def test_cached_image_is_built_once(cache):
    first = sshguest.cached_disk_image(cache)
    mtime = os.stat(first).st_mtime_ns
    assert sshguest.cached_disk_image(cache) == first
    assert os.stat(first).st_mtime_ns == mtime
    with open(first, 'rb') as f:
        assert f.read(512)[510:] == b'\x55\xaa'

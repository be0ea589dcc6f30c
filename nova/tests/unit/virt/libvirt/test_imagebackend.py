"""Image cache and qcow2 overlays, with the real qemu-img."""

import hashlib
import json
import os
import subprocess
import sys
import threading

import pytest

from nova import exception
from nova.tests.fixtures import bootimg
from nova.tests.fixtures import libvirt as fx
from nova.virt.libvirt import imagebackend


@pytest.fixture
def raw_image(tmp_path):
    return bootimg.write_boot_image(str(tmp_path / 'src.raw'), 'HELLO')


def qemu_img(*args):
    subprocess.run(('qemu-img',) + args, check=True, capture_output=True)


def test_cache_fetches_once_under_sha1_name(tmp_path, raw_image):
    fetch = fx.file_fetcher({'img-1': raw_image})
    cache = imagebackend.ImageCache(str(tmp_path / '_base'), fetch)
    first = cache.get(None, 'img-1', 'raw')
    second = cache.get(None, 'img-1', 'raw')
    assert fetch.calls == ['img-1']
    assert first.path == second.path == str(
        tmp_path / '_base' / hashlib.sha1(b'img-1').hexdigest())
    assert (first.format, first.virtual_size) == ('raw', 1024 * 1024)
    assert os.listdir(tmp_path / '_base') == [os.path.basename(first.path)]


def test_concurrent_gets_fetch_once(tmp_path, raw_image):
    fetch = fx.file_fetcher({'img-1': raw_image})
    cache = imagebackend.ImageCache(str(tmp_path / '_base'), fetch)
    threads = [threading.Thread(target=cache.get, args=(None, 'img-1'))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert fetch.calls == ['img-1']


def _readers(allowed):
    """An authorizer letting the projects in ``allowed`` read each image."""
    calls = []

    def authorize(context, image_id):
        calls.append((context, image_id))
        if context not in allowed.get(image_id, ()):
            raise exception.ImageNotFound(image_id=image_id)
    authorize.calls = calls
    return authorize


def test_cached_image_is_checked_against_each_caller(tmp_path, raw_image):
    fetch = fx.file_fetcher({'bob-kernel': raw_image})
    authorize = _readers({'bob-kernel': ('bob',)})
    cache = imagebackend.ImageCache(str(tmp_path / '_base'), fetch, authorize=authorize)
    cache.get('bob', 'bob-kernel')            # fetched as bob: the download checks
    assert fetch.calls == ['bob-kernel'] and authorize.calls == []
    assert cache.get('bob', 'bob-kernel').path == cache.path_for('bob-kernel')
    assert authorize.calls == [('bob', 'bob-kernel')]
    with pytest.raises(exception.ImageNotFound):
        cache.get('alice', 'bob-kernel')
    assert authorize.calls[-1] == ('alice', 'bob-kernel')
    # Nothing fetched again, and no copy made for alice.
    dest = tmp_path / 'alice-kernel'
    with pytest.raises(exception.ImageNotFound):
        imagebackend.copy_from_cache('alice', cache, 'bob-kernel', str(dest))
    assert not dest.exists() and fetch.calls == ['bob-kernel']


def test_overlay_of_a_cached_image_is_refused_to_another_project(tmp_path, raw_image):
    fetch = fx.file_fetcher({'bob-disk': raw_image})
    cache = imagebackend.ImageCache(str(tmp_path / '_base'), fetch,
                                    authorize=_readers({'bob-disk': ('bob',)}))
    imagebackend.create_root_disk('bob', cache, 'bob-disk', str(tmp_path / 'b.qcow2'), 0)
    with pytest.raises(exception.ImageNotFound):
        imagebackend.create_root_disk('alice', cache, 'bob-disk',
                                      str(tmp_path / 'a.qcow2'), 0)
    assert not (tmp_path / 'a.qcow2').exists()


def test_an_image_the_api_already_read_is_not_looked_up_again(tmp_path, raw_image):
    # A rescue image: the compute API showed it as the requester for this
    # rescue. Only that use skips the second look-up; every other use is checked.
    fetch = fx.file_fetcher({'img': raw_image})
    authorize = _readers({'img': ('bob',)})
    cache = imagebackend.ImageCache(str(tmp_path / '_base'), fetch, authorize=authorize)
    cache.get('bob', 'img')
    imagebackend.create_root_disk('bob', cache, 'img', str(tmp_path / 'r.qcow2'), 0,
                                  authorized=True)
    assert authorize.calls == [] and (tmp_path / 'r.qcow2').exists()
    with pytest.raises(exception.ImageNotFound):
        imagebackend.create_root_disk('alice', cache, 'img', str(tmp_path / 'a.qcow2'), 0)
    assert authorize.calls == [('alice', 'img')]


def test_qcow2_base_stays_qcow2(tmp_path, raw_image):
    src = str(tmp_path / 'src.qcow2')
    qemu_img('convert', '-f', 'raw', '-O', 'qcow2', raw_image, src)
    cache = imagebackend.ImageCache(str(tmp_path / '_base'),
                                    fx.file_fetcher({'q': src}))
    assert cache.get(None, 'q', 'qcow2').format == 'qcow2'


def test_other_formats_are_converted_to_raw(tmp_path, raw_image):
    src = str(tmp_path / 'src.vmdk')
    qemu_img('convert', '-f', 'raw', '-O', 'vmdk', raw_image, src)
    cache = imagebackend.ImageCache(str(tmp_path / '_base'),
                                    fx.file_fetcher({'v': src}))
    base = cache.get(None, 'v', 'vmdk')
    assert base.format == 'raw'
    with open(base.path, 'rb') as f:
        assert f.read(512) == bootimg.boot_sector('HELLO')


def test_qcow2_posing_as_raw_is_refused(tmp_path, raw_image):
    src = str(tmp_path / 'evil.qcow2')
    qemu_img('convert', '-f', 'raw', '-O', 'qcow2', raw_image, src)
    cache = imagebackend.ImageCache(str(tmp_path / '_base'),
                                    fx.file_fetcher({'e': src}))
    with pytest.raises(exception.ImageUnacceptable) as err:
        cache.get(None, 'e', 'raw')
    assert 'disk_format is raw but the data is qcow2' in str(err.value)
    assert os.listdir(tmp_path / '_base') == []


def test_backing_file_in_image_is_refused(tmp_path, raw_image):
    src = str(tmp_path / 'evil.qcow2')
    qemu_img('create', '-f', 'qcow2', '-b', raw_image, '-F', 'raw', src)
    cache = imagebackend.ImageCache(str(tmp_path / '_base'),
                                    fx.file_fetcher({'e': src}))
    with pytest.raises(exception.ImageUnacceptable) as err:
        cache.get(None, 'e', 'qcow2')
    assert 'backing file' in str(err.value)
    assert os.listdir(tmp_path / '_base') == []


def test_failed_fetch_leaves_no_partial_file(tmp_path):
    def fetch(context, image_id, dest):
        with open(dest, 'wb') as f:
            f.write(b'partial')
        raise exception.ImageServiceError(reason='connection reset')

    cache = imagebackend.ImageCache(str(tmp_path / '_base'), fetch)
    with pytest.raises(exception.ImageServiceError):
        cache.get(None, 'img')
    assert os.listdir(tmp_path / '_base') == []


def test_overlay_has_backing_file_format_and_flavor_size(tmp_path, raw_image):
    cache = imagebackend.ImageCache(str(tmp_path / '_base'),
                                    fx.file_fetcher({'i': raw_image}))
    dest = str(tmp_path / 'disk')
    base = imagebackend.create_root_disk(None, cache, 'i', dest, root_gb=1)
    info = imagebackend.qemu_img_info(dest, 'qcow2')
    assert info['format'] == 'qcow2'
    assert info['backing-filename'] == base.path
    assert info['backing-filename-format'] == 'raw'
    assert info['virtual-size'] == imagebackend.GiB


def test_overlay_keeps_image_size_when_root_gb_is_zero(tmp_path, raw_image):
    cache = imagebackend.ImageCache(str(tmp_path / '_base'),
                                    fx.file_fetcher({'i': raw_image}))
    dest = str(tmp_path / 'disk')
    imagebackend.create_root_disk(None, cache, 'i', dest, root_gb=0)
    assert imagebackend.qemu_img_info(dest, 'qcow2')['virtual-size'] == \
        1024 * 1024


def test_flavor_smaller_than_image_is_refused(tmp_path):
    def fetch_sparse_2g(context, image_id, dest):
        with open(dest, 'wb') as f:
            f.truncate(2 * imagebackend.GiB)   # sparse: costs no disk

    cache = imagebackend.ImageCache(str(tmp_path / '_base'), fetch_sparse_2g)
    with pytest.raises(exception.ImageUnacceptable) as err:
        imagebackend.create_root_disk(None, cache, 'b',
                                      str(tmp_path / 'disk'), root_gb=1)
    assert 'smaller than the image' in str(err.value)
    assert not os.path.exists(tmp_path / 'disk')


def test_direct_io_probe_leaves_nothing_behind(tmp_path):
    # Whether tmpfs has O_DIRECT depends on the kernel (6.6+ does), so
    # only the probe's contract is checked here.
    assert imagebackend.supports_direct_io(str(tmp_path)) is True
    assert imagebackend.supports_direct_io(str(tmp_path / 'missing')) is False
    assert os.listdir(tmp_path) == []


def test_unsafe_image_is_refused_before_qemu_img_reads_it(tmp_path, raw_image, monkeypatch):
    src = str(tmp_path / 'evil.qcow2')
    qemu_img('create', '-f', 'qcow2', '-b', raw_image, '-F', 'raw', src)
    cache = imagebackend.ImageCache(str(tmp_path / '_base'), fx.file_fetcher({'e': src}))
    # No qemu-img on the PATH: only the format inspector can refuse it.
    monkeypatch.setenv('PATH', str(tmp_path / 'empty'))
    with pytest.raises(exception.ImageUnacceptable) as err:
        cache.get(None, 'e', 'qcow2')
    assert 'format safety checks' in str(err.value)


def test_boot_sector_image_passes_the_format_inspector(tmp_path):
    # A bare MBR boot sector reads as a GPT disk whose protective MBR has no
    # partition: only the table's tidiness checks fail, which are not fatal.
    src = bootimg.write_boot_image(str(tmp_path / 'boot.img'), 'HELLO')
    assert imagebackend.inspect_untrusted('b', src, 'raw') == 'gpt'
    with pytest.raises(exception.ImageUnacceptable):
        imagebackend.inspect_untrusted('b', src, 'qcow2')


def test_the_inspector_runs_outside_the_service(tmp_path):
    # The driver imports no format inspector (nor cryptography, which its
    # LUKS helper loads); a child interpreter inspects and answers in JSON.
    code = ('import sys, nova.virt.libvirt.driver; '
            'sys.exit(bool({"cryptography", "oslo_utils.imageutils.format_inspector"}'
            ' & set(sys.modules)))')
    subprocess.run([sys.executable, '-c', code], check=True)
    src = bootimg.write_boot_image(str(tmp_path / 'boot.img'), 'HELLO')
    out = subprocess.run([sys.executable, '-I', imagebackend.FORMAT_PROBE, src],
                         check=True, capture_output=True, text=True).stdout
    assert json.loads(out) == {'format': 'gpt',
                               'failures': {'mbr': 'GPT MBR has no partitions defined'}}


def test_overlays_are_copied_from_one_template_per_base_and_size(tmp_path, raw_image,
                                                                  monkeypatch):
    cache = imagebackend.ImageCache(str(tmp_path / '_base'), fx.file_fetcher({'i': raw_image}))
    first = str(tmp_path / 'disk1')
    base = imagebackend.create_root_disk(None, cache, 'i', first, root_gb=1)
    # From now on no qemu-img is needed for this base and size.
    path = os.environ['PATH']
    monkeypatch.setenv('PATH', str(tmp_path / 'empty'))
    second = str(tmp_path / 'disk2')
    imagebackend.create_qcow2_overlay(base, second, imagebackend.GiB)
    monkeypatch.setenv('PATH', path)
    qemu_io(second, 'write -P 0x5a 2M 64k')
    for disk, pattern in ((first, 0), (second, 0x5a)):
        info = imagebackend.qemu_img_info(disk, 'qcow2')
        assert info['backing-filename'] == base.path
        assert info['virtual-size'] == imagebackend.GiB
        # Each disk is its own file: a write to one never shows in another.
        # (beyond the base image's data; qemu-io fails on a pattern mismatch)
        qemu_io(disk, 'read -P 0x%x 2M 64k' % pattern)
    template = imagebackend._overlay_template(base, imagebackend.GiB)
    assert not os.access(template, os.W_OK) or os.geteuid() == 0
    assert os.stat(template).st_mode & 0o777 == 0o444
    assert os.stat(second).st_mode & 0o200


def qemu_io(path, command):
    proc = subprocess.run(['qemu-io', '-f', 'qcow2', '-c', command, path],
                          capture_output=True, text=True, check=True)
    return proc.stdout + proc.stderr


def test_a_known_cached_image_is_read_without_the_lock(tmp_path, raw_image, monkeypatch):
    fetch = fx.file_fetcher({'img': raw_image})
    authorize = _readers({'img': ('bob',)})
    cache = imagebackend.ImageCache(str(tmp_path / '_base'), fetch, authorize=authorize)
    first = cache.get('bob', 'img')
    locked = []
    real_lock = cache._lock_for
    monkeypatch.setattr(cache, '_lock_for', lambda image_id: locked.append(image_id)
                        or real_lock(image_id))
    assert cache.get('bob', 'img') is first
    assert locked == [] and authorize.calls == [('bob', 'img')]
    # Each caller is still checked; a refused one gets nothing.
    with pytest.raises(exception.ImageNotFound):
        cache.get('alice', 'img')
    # A file removed behind the cache's back is fetched again, under the lock.
    os.unlink(first.path)
    assert cache.get('bob', 'img', authorized=True).path == first.path
    assert locked == ['img'] and fetch.calls == ['img', 'img']

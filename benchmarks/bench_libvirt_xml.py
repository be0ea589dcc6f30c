"""Time guest XML generation and disk mapping for root+eph+swap+config drive+4 volumes."""

import statistics
import sys
import timeit

from nova.tests.fixtures import libvirt as fx
from nova.virt.libvirt import blockinfo, guest_config

SETTINGS = guest_config.GuestSettings(
    domain_type='kvm', arch='x86_64', instances_path='/var/lib/nova/instances',
    disk_cachemode='none', machine_types=(('x86_64', 'q35'),))


def workload():
    instance = fx.make_instance(
        uuid='11111111-2222-3333-4444-555555555555', name='instance-00000001',
        config_drive='True', flavor=fx.make_flavor(vcpus=2, memory_mb=2048,
                                                   ephemeral_gb=1, swap=512))
    meta = fx.make_image_meta()
    bdi = fx.block_device_info([
        fx.volume_bdm('vol-%d' % i, '/var/lib/volumes/vol-%d' % i)
        for i in range(4)])
    return instance, meta, bdi


def measure(func, number, repeat):
    """Per-call seconds of each repeat (timeit with ``number`` calls)."""
    return [t / number for t in timeit.repeat(func, number=number,
                                              repeat=repeat)]


def report(name, samples, target):
    median = statistics.median(samples)
    print('%-34s median %8.1f us  min %8.1f  max %8.1f  (target %.0f us) %s'
          % (name, median * 1e6, min(samples) * 1e6, max(samples) * 1e6,
             target * 1e6, 'OK' if median <= target else 'OVER'))
    return median <= target


def main(repeat=15):
    instance, meta, bdi = workload()
    props = meta.properties

    def mapping_only():
        return blockinfo.get_disk_mapping(
            'kvm', props, 'qcow2', machine_type='q35', arch='x86_64',
            ephemeral_gb=1, swap_mb=512, config_drive_type='cdrom',
            block_device_info=bdi)

    def driver_mapping():
        return guest_config.get_disk_mapping('kvm', SETTINGS, instance,
                                               meta, bdi)

    def xml():
        mapping = guest_config.get_disk_mapping('kvm', SETTINGS, instance,
                                                  meta, bdi)
        return guest_config.get_guest_config(
            SETTINGS, instance, meta, mapping, None, bdi).to_xml()

    xml()   # warm imports and caches
    ok = report('disk mapping (blockinfo)', measure(mapping_only, 2000,
                                                    repeat), 100e-6)
    ok &= report('disk mapping (driver wrapper)', measure(driver_mapping,
                                                          2000, repeat),
                 100e-6)
    ok &= report('guest XML (mapping + config + XML)', measure(xml, 300,
                                                               repeat),
                 2e-3)
    disks = xml().count('<disk ')
    print('guest has %d disks' % disks)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())

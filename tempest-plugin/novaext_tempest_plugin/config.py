"""The [novaext] option group: what the cloud under test supports, white-box access."""

from oslo_config import cfg

group = cfg.OptGroup(name='novaext',
                     title='Stable-device rescue and image property overrides')

opts = [
    cfg.BoolOpt('image_props_override', default=True,
                help='The cloud accepts image_props_override on server create '
                     '(compute API 2.105).'),
    cfg.BoolOpt('rescue_image_props_override', default=True,
                help='The cloud accepts image_props_override on the rescue action '
                     '(compute API 2.106).'),
    cfg.BoolOpt('stable_rescue', default=True,
                help='Rescue images with hw_rescue_bus/hw_rescue_device get '
                     'stable-device rescue.'),
    cfg.ListOpt('rescue_bus_devices',
                default=['usb:disk', 'virtio:disk', 'scsi:disk', 'ide:disk', 'ide:cdrom'],
                help='The BUS:DEVICE combinations of hw_rescue_bus and hw_rescue_device '
                     'the cloud supports; one stable-rescue scenario runs per entry. '
                     'Known: usb:disk virtio:disk scsi:disk ide:disk ide:cdrom '
                     'sata:cdrom (booted with hw_machine_type=q35) fdc:floppy.'),
    cfg.BoolOpt('volume_backed_rescue', default=True,
                help='Volume-backed servers can be rescued (compute API 2.87); needs '
                     '[service_available] cinder.'),
    cfg.StrOpt('denied_override_key', default='img_signature',
               help='A property the cloud refuses to override ([api] '
                    'image_props_override_denylist); empty skips the 403 test.'),
    cfg.StrOpt('libvirt_uri',
               help='A read-only libvirt URI of the compute host (e.g. qemu:///system, '
                    'qemu+ssh://root@host/system) for white-box checks of the guests\' '
                    'domain XML, read with "virsh -r". Unset: those checks are skipped '
                    'and the tests rely on the guests\' console output.'),
    cfg.StrOpt('virsh', default='virsh', help='The virsh command for white-box checks.'),
    cfg.StrOpt('kernel_path',
               help='A Linux kernel (vmlinuz) for the kernel+initrd scenario; with '
                    'busybox_path the plugin builds and uploads the guest itself. '
                    'Unset: that scenario is skipped.'),
    cfg.StrOpt('busybox_path', help='A static busybox binary for the test initrd.'),
    cfg.IntOpt('console_timeout', default=180,
               help='Seconds to wait for a guest to print its marker on the console.'),
    cfg.StrOpt('machine_type', default='q35',
               help='A machine type for the hw_machine_type override test (any type the '
                    'hypervisor supports other than the default).'),
]

#!/bin/sh
# Fetch Debian's cloud kernel, a static busybox and dropbear into a cache dir for guest tests; idempotent.
#
# Usage: tools/fetch-test-kernel.sh [CACHE_DIR]   (default: $NOVA_TEST_KERNEL_CACHE
# or /var/cache/nova-test). Leaves CACHE_DIR/vmlinuz, CACHE_DIR/busybox and, in
# CACHE_DIR/modules, the kernel modules the test guests load from their initrd: virtio
# (virtio-serial for the guest agent guests; network, block, FAT, ISO 9660 CD-ROM on IDE
# and the ACPI power button for the SSH guest, nova/tests/fixtures/sshguest.py).
# CACHE_DIR/dropbear holds Debian's dropbear SSH server (sbin/dropbear) with the shared
# libraries it loads (lib/), and CACHE_DIR/syslinux the MBR boot code and the mtools
# installer of SYSLINUX, which make the SSH guest's disk bootable.
# Only `apt-get download` + `dpkg-deb`: nothing is installed, no initramfs is
# built (a full install of linux-image-cloud-amd64 takes ~46 s, this ~5 s).
set -eu

CACHE=${1:-${NOVA_TEST_KERNEL_CACHE:-/var/cache/nova-test}}
KERNEL_META=linux-image-cloud-amd64
BUSYBOX_PKG=busybox-static

# The modules, in the order they load (each after those it depends on).
MODULES="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_console
failover net_failover virtio_net virtio_blk fat vfat nls_cp437 nls_iso8859-1 nls_ascii nls_utf8 scsi_common
scsi_mod cdrom sr_mod libata ata_piix isofs button evdev"
# dropbear-bin and every library it loads (through libtomcrypt, libgmp too).
DROPBEAR_PKGS="dropbear-bin libtomcrypt1 libtommath1 libgmp10 zlib1g libcrypt1 libc6"
DROPBEAR_LIBS="libtomcrypt.so.1 libtommath.so.1 libgmp.so.10 libz.so.1 libcrypt.so.1 libc.so.6
ld-linux-x86-64.so.2"
SYSLINUX_PKGS="syslinux syslinux-common"

have_all() {
    for m in $MODULES; do [ -s "$CACHE/modules/$m.ko" ] || return 1; done
    for l in $DROPBEAR_LIBS; do [ -s "$CACHE/dropbear/lib/$l" ] || return 1; done
    [ -x "$CACHE/dropbear/sbin/dropbear" ] && [ -x "$CACHE/syslinux/syslinux" ] &&
        [ -s "$CACHE/syslinux/mbr.bin" ]
}

if [ -s "$CACHE/vmlinuz" ] && [ -x "$CACHE/busybox" ] && have_all; then
    echo "test kernel already in $CACHE"
    exit 0
fi
mkdir -p "$CACHE"

# The meta package holds no kernel: it depends on the versioned image package.
kernel_pkg() {
    apt-cache depends "$KERNEL_META" 2>/dev/null |
        awk '/Depends: linux-image-[0-9]/ { print $2; exit }'
}
pkg=$(kernel_pkg)
if [ -z "$pkg" ]; then
    # Fresh containers often ship without package lists.
    apt-get update -qq
    pkg=$(kernel_pkg)
fi
if [ -z "$pkg" ]; then
    echo "cannot resolve $KERNEL_META to a kernel package" >&2
    exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# apt-get download writes to the current directory, which the _apt sandbox
# user cannot enter; downloading as the caller avoids a warning per file.
# shellcheck disable=SC2086
apt-get download -qq -o APT::Sandbox::User="$(id -un)" "$pkg" "$BUSYBOX_PKG" \
    $DROPBEAR_PKGS $SYSLINUX_PKGS

dpkg-deb --fsys-tarfile "$pkg"_*.deb | tar -x ./boot/ ./lib/modules/
vmlinuz=$(ls boot/vmlinuz-* | head -n 1)
dpkg-deb --fsys-tarfile "$BUSYBOX_PKG"_*.deb | tar -x ./bin/busybox
mkdir -p pkgs
for p in $DROPBEAR_PKGS $SYSLINUX_PKGS; do
    dpkg-deb -x "$p"_*.deb pkgs
done

# Rename into place last so a half-finished run never looks complete.
cp "$vmlinuz" "$CACHE/vmlinuz.part"
chmod 0644 "$CACHE/vmlinuz.part"
cp bin/busybox "$CACHE/busybox.part"
chmod 0755 "$CACHE/busybox.part"
mkdir -p "$CACHE/modules.part"
for m in $MODULES; do
    ko=$(find lib/modules -name "$m.ko" | head -n 1)
    [ -n "$ko" ] || { echo "no $m.ko in $pkg" >&2; exit 1; }
    cp "$ko" "$CACHE/modules.part/"
done
mkdir -p "$CACHE/dropbear.part/sbin" "$CACHE/dropbear.part/lib"
cp pkgs/usr/sbin/dropbear "$CACHE/dropbear.part/sbin/"
for l in $DROPBEAR_LIBS; do
    so=$(find pkgs/lib pkgs/usr/lib -name "$l" | head -n 1)
    [ -n "$so" ] || { echo "no $l in $DROPBEAR_PKGS" >&2; exit 1; }
    # Most are symlinks to the versioned file: copy what they point at.
    cp -L "$so" "$CACHE/dropbear.part/lib/$l"
done
mkdir -p "$CACHE/syslinux.part"
cp pkgs/usr/bin/syslinux "$CACHE/syslinux.part/syslinux"
cp pkgs/usr/lib/syslinux/mbr/mbr.bin "$CACHE/syslinux.part/mbr.bin"
rm -rf "$CACHE/modules" "$CACHE/dropbear" "$CACHE/syslinux"
mv "$CACHE/modules.part" "$CACHE/modules"
mv "$CACHE/dropbear.part" "$CACHE/dropbear"
mv "$CACHE/syslinux.part" "$CACHE/syslinux"
mv "$CACHE/busybox.part" "$CACHE/busybox"
mv "$CACHE/vmlinuz.part" "$CACHE/vmlinuz"
echo "$(basename "$vmlinuz"), its guest modules, busybox, dropbear and syslinux in $CACHE"

#!/bin/sh
# Fetch Debian's cloud kernel and a static busybox into a cache dir for kernel+initrd guest tests; idempotent.
#
# Usage: tools/fetch-test-kernel.sh [CACHE_DIR]   (default: $NOVA_TEST_KERNEL_CACHE
# or /var/cache/nova-test). Leaves CACHE_DIR/vmlinuz, CACHE_DIR/busybox and, in
# CACHE_DIR/modules, the kernel's virtio modules a guest needs for a virtio-serial
# channel (the guest agent test guests load them from their initrd).
# Only `apt-get download` + `dpkg-deb`: nothing is installed, no initramfs is
# built (a full install of linux-image-cloud-amd64 takes ~46 s, this ~5 s).
set -eu

CACHE=${1:-${NOVA_TEST_KERNEL_CACHE:-/var/cache/nova-test}}
KERNEL_META=linux-image-cloud-amd64
BUSYBOX_PKG=busybox-static

# The modules, in the order they load (each after those it depends on).
MODULES="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_console"

have_modules() {
    for m in $MODULES; do [ -s "$CACHE/modules/$m.ko" ] || return 1; done
}

if [ -s "$CACHE/vmlinuz" ] && [ -x "$CACHE/busybox" ] && have_modules; then
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
apt-get download -qq -o APT::Sandbox::User="$(id -un)" "$pkg" "$BUSYBOX_PKG"

dpkg-deb --fsys-tarfile "$pkg"_*.deb | tar -x ./boot/ ./lib/modules/
vmlinuz=$(ls boot/vmlinuz-* | head -n 1)
dpkg-deb --fsys-tarfile "$BUSYBOX_PKG"_*.deb | tar -x ./bin/busybox

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
rm -rf "$CACHE/modules"
mv "$CACHE/modules.part" "$CACHE/modules"
mv "$CACHE/busybox.part" "$CACHE/busybox"
mv "$CACHE/vmlinuz.part" "$CACHE/vmlinuz"
echo "$(basename "$vmlinuz"), its virtio modules and busybox from $BUSYBOX_PKG in $CACHE"

#!/bin/sh
# Start virtlogd + libvirtd (under tini as subreaper) for tests and CI; idempotent.
set -eu

URI=qemu:///system
QEMU_CONF=/etc/libvirt/qemu.conf
LOG=${LIBVIRTD_LOG:-/var/log/libvirtd-foreground.log}

if virsh -c "$URI" version >/dev/null 2>&1; then
    echo "libvirtd already answers on $URI"
    exit 0
fi

# No udev here: /dev/kvm and instance dirs are root-only, so QEMU must run as
# root or libvirt re-probes QEMU on every call and cannot open the disks.
if ! grep -q '^user = "root"' "$QEMU_CONF" ||
        ! grep -q '^group = "root"' "$QEMU_CONF"; then
    sed -i '/^[[:space:]]*user[[:space:]]*=/d; /^[[:space:]]*group[[:space:]]*=/d' \
        "$QEMU_CONF"
    printf 'user = "root"\ngroup = "root"\n' >> "$QEMU_CONF"
fi

# Optional hugepages (NOVA_TEST_HUGEPAGES=<count of 2 MiB pages>): libvirt
# only sees a hugetlbfs mount that exists before it starts.
if [ -n "${NOVA_TEST_HUGEPAGES:-}" ]; then
    echo "$NOVA_TEST_HUGEPAGES" > /proc/sys/vm/nr_hugepages
    if ! grep -q ' hugetlbfs ' /proc/mounts; then
        mkdir -p /dev/hugepages
        mount -t hugetlbfs -o pagesize=2M hugetlbfs /dev/hugepages
    fi
fi

# libvirtd hands guest serial/console output to virtlogd; it must be up first.
if ! pgrep -x virtlogd >/dev/null 2>&1; then
    virtlogd -d
fi

# Foreground under tini -s: PID 1 here reaps QEMU zombies slowly, which makes
# every domain destroy take ~2 s instead of ~0.3 s.
if ! pgrep -x libvirtd >/dev/null 2>&1; then
    setsid nohup tini -s -- libvirtd >"$LOG" 2>&1 </dev/null &
fi

i=0
until virsh -c "$URI" version >/dev/null 2>&1; do
    i=$((i + 1))
    if [ "$i" -gt 100 ]; then
        echo "libvirtd did not answer on $URI; see $LOG" >&2
        exit 1
    fi
    sleep 0.2
done

# The first capabilities probe takes 4-12 s; pay it now, not in a test.
virsh -c "$URI" domcapabilities --virttype qemu >/dev/null
virsh -c "$URI" capabilities >/dev/null
echo "libvirtd ready on $URI"

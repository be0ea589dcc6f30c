#!/bin/sh
# Start (or stop) a second, independent libvirtd for a second compute host; idempotent.
#
# The peer daemon runs in a private mount namespace whose /run/libvirt,
# /var/lib/libvirt, /etc/libvirt, /var/log/libvirt and /var/cache/libvirt are
# bind mounts of directories under $ROOT, so it has its own sockets, domain
# state and configuration while sharing the rest of the file system (instance
# directories, images) with the system daemon.  It has its own host UUID, its
# own migration and display port ranges and no cgroups, so libvirt accepts a
# live migration between it and the system daemon.  Both daemons can reach
# each other (peer-to-peer migration) and every client can reach both at paths
# that mean the same inside and outside the namespace:
#   peer:   qemu+unix:///system?socket=$ROOT/run/libvirt-sock
#   system: qemu+unix:///system?socket=$ROOT/sysrun/libvirt-sock
# ($ROOT/sysrun holds a symlink to the system socket; inside the namespace the
# directory is covered by a bind mount of the system daemon's /run/libvirt.)
# With NOVA_LIBVIRT_PEER_NETNS=NAME the daemon (and so every QEMU it starts, and the
# taps QEMU opens) also runs in the network namespace /run/netns/NAME: tools/neutron.sh
# uses that for the hypervisor namespace that holds br-int. Clients still reach it
# through its unix socket from any namespace.
#
# Usage: start-libvirtd-peer.sh [start|stop|uri|system-uri]
set -eu

ROOT=${NOVA_LIBVIRT_PEER_ROOT:-/var/lib/nova-libvirt-peer}
HOST_UUID=${NOVA_LIBVIRT_PEER_UUID:-6c1bd3a2-5f0e-4d36-9a8e-0e4f6a2b9c51}
SOCK=$ROOT/run/libvirt-sock
URI="qemu+unix:///system?socket=$SOCK"
ACTION=${1:-start}

answers() {
    virsh -c "$URI" version >/dev/null 2>&1
}

case "$ACTION" in
uri)
    echo "$URI"
    exit 0
    ;;
system-uri)
    echo "qemu+unix:///system?socket=$ROOT/sysrun/libvirt-sock"
    exit 0
    ;;
stop)
    for name in virtlogd libvirtd; do
        if [ -s "$ROOT/$name.pid" ]; then
            kill "$(cat "$ROOT/$name.pid")" 2>/dev/null || true
        fi
    done
    i=0
    while answers && [ "$i" -lt 50 ]; do
        i=$((i + 1))
        sleep 0.2
    done
    echo "peer libvirtd stopped"
    exit 0
    ;;
start) ;;
*)
    echo "usage: $0 [start|stop|uri]" >&2
    exit 2
    ;;
esac

if answers; then
    echo "peer libvirtd already answers on $URI"
    exit 0
fi

mkdir -p "$ROOT/run" "$ROOT/lib" "$ROOT/log" "$ROOT/cache" "$ROOT/sysrun"
chmod 0700 "$ROOT"
ln -sfn /run/libvirt/libvirt-sock "$ROOT/sysrun/libvirt-sock"
if [ ! -d "$ROOT/etc" ]; then
    mkdir -p "$ROOT/etc"
    cp -a /etc/libvirt/. "$ROOT/etc/"
    # No autostarted networks or domains of the system daemon.
    rm -rf "$ROOT/etc/qemu/networks/autostart" "$ROOT/etc/qemu/autostart"
    find "$ROOT/etc/qemu" -maxdepth 1 -name '*.xml' -delete
fi
for sub in qemu qemu/nvram images boot; do
    mkdir -p "$ROOT/lib/$sub"
done

# Settings owned by this script are rewritten on every start.
sed -i '/^host_uuid[[:space:]]*=/d' "$ROOT/etc/libvirtd.conf"
echo "host_uuid = \"$HOST_UUID\"" >> "$ROOT/etc/libvirtd.conf"
QCONF=$ROOT/etc/qemu.conf
sed -i '/^[[:space:]]*\(user\|group\|cgroup_controllers\|migration_port_min\|migration_port_max\|remote_display_port_min\|remote_display_port_max\|remote_websocket_port_min\|remote_websocket_port_max\)[[:space:]]*=/d' "$QCONF"
# NOVA_LIBVIRT_PEER_DISPLAY_PORTS / _WEBSOCKET_PORTS (MIN:MAX) move the graphics ports,
# e.g. so that a relay can carry a namespaced daemon's range to the root namespace.
DISPLAY_PORTS=${NOVA_LIBVIRT_PEER_DISPLAY_PORTS:-6900:6999}
WEBSOCKET_PORTS=${NOVA_LIBVIRT_PEER_WEBSOCKET_PORTS:-7900:7999}
cat >> "$QCONF" <<EOF
user = "root"
group = "root"
cgroup_controllers = [ ]
migration_port_min = 49300
migration_port_max = 49363
remote_display_port_min = ${DISPLAY_PORTS%%:*}
remote_display_port_max = ${DISPLAY_PORTS##*:}
remote_websocket_port_min = ${WEBSOCKET_PORTS%%:*}
remote_websocket_port_max = ${WEBSOCKET_PORTS##*:}
EOF

LOG=$ROOT/log/libvirtd-foreground.log
NETNS=${NOVA_LIBVIRT_PEER_NETNS:-}
IN_NETNS=""
if [ -n "$NETNS" ]; then
    [ -e "/run/netns/$NETNS" ] || { echo "no network namespace $NETNS" >&2; exit 1; }
    IN_NETNS="nsenter --net=/run/netns/$NETNS"
fi
# The namespace keeps its bind mounts private; virtlogd and libvirtd share it. They run
# in $ROOT, not in the checkout that started them (it may be removed while they run).
cd "$ROOT"
# shellcheck disable=SC2086
setsid nohup $IN_NETNS unshare -m --propagation private sh -c '
    set -e
    R=$1
    mount --bind /run/libvirt "$R/sysrun"
    mount --bind "$R/run" /run/libvirt
    mount --bind "$R/lib" /var/lib/libvirt
    mount --bind "$R/etc" /etc/libvirt
    mount --bind "$R/log" /var/log/libvirt
    mount --bind "$R/cache" /var/cache/libvirt
    virtlogd -d -p "$R/virtlogd.pid"
    exec tini -s -- libvirtd -p "$R/libvirtd.pid"
' sh "$ROOT" >"$LOG" 2>&1 </dev/null &

i=0
until answers; do
    i=$((i + 1))
    if [ "$i" -gt 100 ]; then
        echo "peer libvirtd did not answer on $URI; see $LOG" >&2
        exit 1
    fi
    sleep 0.2
done
virsh -c "$URI" domcapabilities --virttype qemu >/dev/null
virsh -c "$URI" capabilities >/dev/null
echo "peer libvirtd ready on $URI"

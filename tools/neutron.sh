#!/usr/bin/env bash
# Run a real Neutron 29 (ML2/OVN, OVS userspace datapath) and a hypervisor namespace for tests.
#
#   tools/neutron.sh [start]   install (once), start OVS/OVN, Neutron, the metadata agent, the
#                              relays and the hypervisor's libvirtd; create the public network
#   tools/neutron.sh restart   stop, then start
#   tools/neutron.sh stop      stop everything, delete the namespaces (databases are kept)
#   tools/neutron.sh status    one line per part: running or not
#   tools/neutron.sh reset     stop, drop the database and the OVS/OVN state
#
# Needs tools/keystone.sh's Keystone (Neutron authenticates against it and is registered in
# its catalog as the "network" service) and MariaDB on its unix socket (Neutron 29 does not
# run on PostgreSQL). Idempotent: "start" on a running stack only re-checks it. Everything
# lives under NOVA_COMPAT_DIR (default /var/lib/nova-compat): neutron-venv, neutron/ (state,
# configuration, logs) and neutron.env (every address, socket, id and secret that a nova
# configuration and the tests need; see also neutron/nova-neutron.conf and
# neutron/tempest-neutron.conf).
#
# Topology. The root network namespace carries nothing but loopback, so every address and
# every guest lives in namespaces this script creates:
#
#   root namespace (loopback only)          hypervisor namespace HV_NS (nova-hv)
#   ------------------------------          ------------------------------------------
#   Keystone, Glance, nova-api,             ovs-vswitchd (datapath_type=netdev):
#   nova-compute, the metadata API    relay   br-int (taps of the guests), br-ex
#   127.0.0.1:METADATA_PORT  <=============  127.0.0.1:METADATA_PORT (metadata agent's
#   Neutron API 127.0.0.1:9696                 upstream; the agent and its haproxy run here,
#   maintenance worker                         one ovnmeta-<net> namespace per network)
#   ovsdb-server (unix sockets):   unix      ovn-controller (chassis NOVA_NEUTRON_HOST)
#     Open_vSwitch, OVN NB, OVN SB  <=======> libvirtd + QEMU (mount namespace of its own,
#   ovn-northd                                 reached through its unix socket)
#                                                 | br-ex <-> veth pub-ex/pub-gw
#                                           public namespace PUB_NS (nova-pub)
#   Keystone, nova-api, ...          relay   172.24.4.1/24 on pub-gw: the "public" network's
#   127.0.0.1:PORT           <=============  gateway; floating IPs answer here. tempest runs
#                                            here (nsenter --net), its API calls go to
#                                            127.0.0.1:PORT, relayed to the root namespace
#
# With two chassis (NOVA_NEUTRON_CHASSIS=2, the default) HV_NS2 (nova-hv2) is a second
# hypervisor like HV_NS, chassis NOVA_NEUTRON_HOST_2, without br-ex (the first chassis is
# the gateway). The two reach each other over geneve on the veth ul1/ul2 between their
# br-ul bridges (192.0.2.1 and .2), which also carries live migration streams between the
# two libvirtds (they reach each other's unix sockets).
#
# Unix sockets work across network namespaces; TCP on one namespace's loopback does not, so
# tools/netns_relay.py carries the few TCP ports across, each from a loopback to a loopback:
# the metadata port into HV_NS, the API ports into PUB_NS, and the guests' graphics ports
# (DISPLAY_PORTS, the hypervisor libvirtd's VNC/SPICE range) from HV_NS back to the root
# namespace, where nova's console proxies connect.
# QEMU opens its tap in its own network namespace, so the libvirtd that starts the guests
# runs in HV_NS (tools/start-libvirtd-peer.sh with NOVA_LIBVIRT_PEER_NETNS); nova-compute
# reaches it through its unix socket. Neutron binds ports with ovs_create_tap = true, the
# upstream default (the option is deprecated for removal, so os-vif creating the tap is
# where upstream goes): os-vif adds the OVS port over the ovsdb unix socket from any
# namespace, and creates the tap (and sets MTUs, deletes devices) in its privsep daemon,
# which nova-compute starts in HV_NS through [vif_plug_ovs_privileged] helper_command =
# nsenter --net=/run/netns/HV_NS privsep-helper. The domain XML is then Nova's
# <interface type='ethernet'> with <target dev='tap...' managed='no'/> and, because the
# userspace datapath drops TCP with partial checksums, <driver name='qemu'><host
# csum='off'/></driver>. Neutron's notifier (root namespace) calls the compute API
# directly, with a Keystone token of the neutron service user.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tools/close-fds.sh
. tools/close-fds.sh
REPO=$PWD

COMPAT_DIR=${NOVA_COMPAT_DIR:-/var/lib/nova-compat}
S=$COMPAT_DIR/neutron
VENV=$COMPAT_DIR/neutron-venv
ENV_FILE=$COMPAT_DIR/neutron.env
NEUTRON_VERSION=${NOVA_COMPAT_NEUTRON_VERSION:-29.0.0}
OS_VIF_VERSION=5.3.0
HV_NS=${NOVA_NEUTRON_HV_NETNS:-nova-hv}
PUB_NS=${NOVA_NEUTRON_PUBLIC_NETNS:-nova-pub}
# What nova-compute's [DEFAULT] host must be: ML2/OVN binds a port only to a chassis of
# that hostname.
CHASSIS_HOST=${NOVA_NEUTRON_HOST:-$(hostname)}
HOST=127.0.0.1
PORT=${NOVA_COMPAT_NEUTRON_PORT:-9696}
URL=http://$HOST:$PORT
METADATA_PORT=${NOVA_NEUTRON_METADATA_PORT:-8775}
PUBLIC_CIDR=${NOVA_NEUTRON_PUBLIC_CIDR:-172.24.4.0/24}
PUBLIC_GW=${NOVA_NEUTRON_PUBLIC_GATEWAY:-172.24.4.1}
# The TCP ports of the root namespace that the public namespace sees on its loopback:
# identity, compute, metadata, volume, image (embedded and real Glance), network, the
# console proxies.
PUBLIC_PORTS=${NOVA_NEUTRON_PUBLIC_PORTS:-5000 8774 8775 8776 9292 9393 9696 6080 6082 6083}
# The graphics (VNC, SPICE) ports of guests on the hypervisor's libvirtd, relayed from the
# root namespace's loopback, where the console proxies connect.
DISPLAY_PORTS=${NOVA_NEUTRON_DISPLAY_PORTS:-7100:7149}
WEBSOCKET_PORTS=7150:7199
KEYSTONE_URL=${NOVA_TEST_KEYSTONE_URL:-http://127.0.0.1:5000/v3}
PASSWORD=${NOVA_COMPAT_PASSWORD:-compat-test-secret}
DB_NAME=${NOVA_COMPAT_NEUTRON_DB:-neutron_compat}
MYSQL_SOCKET=${NOVA_COMPAT_MYSQL_SOCKET:-/var/run/mysqld/mysqld.sock}
VHOST=nova-compat-neutron
# Chassis (hypervisors): 1, or 2 for the two-compute-host topologies (aio's second host,
# the split services, tempest's multi-node tests). The second has its own namespace
# HV_NS2 with its own ovsdb, ovs-vswitchd, ovn-controller, metadata agent and libvirtd,
# and reaches the first over geneve on an underlay veth (UNDERLAY_NET.1 and .2, the
# TEST-NET-1 documentation range, only inside the two namespaces).
CHASSIS_COUNT=${NOVA_NEUTRON_CHASSIS:-2}
HV_NS2=${NOVA_NEUTRON_HV_NETNS_2:-${HV_NS}2}
CHASSIS_HOST2=${NOVA_NEUTRON_HOST_2:-$CHASSIS_HOST-2}
UNDERLAY_NET=192.0.2
RUN=$S/run
LOG=$S/log
ETC=$S/etc
export OVS_RUNDIR=$RUN OVS_LOGDIR=$LOG OVS_DBDIR=$S/ovs OVN_RUNDIR=$RUN OVN_LOGDIR=$LOG
OVSDB=unix:$RUN/db.sock
NB=unix:$RUN/ovnnb_db.sock
SB=unix:$RUN/ovnsb_db.sock
vsctl() { ovs-vsctl --db="$OVSDB" --timeout=20 "$@"; }
in_hv() { nsenter --net=/run/netns/"$HV_NS" "$@"; }
in_pub() { nsenter --net=/run/netns/"$PUB_NS" "$@"; }

# chassis N: the C_* settings of hypervisor N (1 keeps the unsuffixed names).
chassis() {
  if [ "$1" = 1 ]; then
    C_NS=$HV_NS C_HOST=$CHASSIS_HOST C_SFX="" C_DISPLAY=$DISPLAY_PORTS C_WEBSOCKET=7150:7199
    C_UUID=3f0c9b1e-8d2a-4c7e-b5a1-6e2d9f4c8a07
  else
    C_NS=$HV_NS2 C_HOST=$CHASSIS_HOST2 C_SFX=-2 C_DISPLAY=7200:7249 C_WEBSOCKET=7250:7299
    C_UUID=3f0c9b1e-8d2a-4c7e-b5a1-6e2d9f4c8a08
  fi
  C_DB=unix:$RUN/db$C_SFX.sock
  # ovs-vswitchd makes its bridges' management sockets (br-int.mgmt, which ovn-controller
  # connects to) in OVS_RUNDIR: one directory per chassis.
  C_RUNDIR=$RUN
  [ "$1" = 1 ] || C_RUNDIR=$RUN/chassis$C_SFX
  C_LIBVIRT_ROOT=$S/libvirt$C_SFX
  C_LIBVIRT_URI="qemu+unix:///system?socket=$C_LIBVIRT_ROOT/run/libvirt-sock"
  C_ENCAP=127.0.0.1
  [ "$CHASSIS_COUNT" = 1 ] || C_ENCAP=$UNDERLAY_NET.$1
}
cvsctl() { ovs-vsctl --db="$C_DB" --timeout=20 "$@"; }
chassis 1
LIBVIRT_URI=$C_LIBVIRT_URI

T_STEP=$SECONDS
step() { echo "neutron: $* ($((SECONDS - T_STEP)) s)"; T_STEP=$SECONDS; }
die() { echo "neutron: $*" >&2; exit 1; }
alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# --------------------------------------------------------------------------- install
install() {
  local need="" cmd pkg
  for cmd in ovs-vswitchd:openvswitch-switch ovn-northd:ovn-central \
      ovn-controller:ovn-host haproxy:haproxy ethtool:ethtool dnsmasq:dnsmasq-base \
      syslinux:syslinux mcopy:mtools mkfs.fat:dosfstools ping:iputils-ping; do
    command -v "${cmd%%:*}" >/dev/null || need="$need ${cmd#*:}"
  done
  [ -e /usr/lib/syslinux/mbr/mbr.bin ] || need="$need syslinux-common"
  python3 -c 'import ensurepip' 2>/dev/null || need="$need python3-venv"
  if [ -n "$need" ]; then
    # policy-rc.d on these machines keeps the packages' init scripts from starting
    # anything: every daemon below is started by this script, with its own state.
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need \
      >"$COMPAT_DIR/neutron-apt.log" 2>&1 || { tail -n 20 "$COMPAT_DIR/neutron-apt.log" >&2; exit 1; }
    step "installed$need"
  fi
  if [ -x "$VENV/bin/neutron-db-manage" ] && [ -x "$VENV/bin/gunicorn" ] \
      && "$VENV/bin/python" -c "import importlib.metadata as m, sys; \
sys.exit(m.version('neutron') != '$NEUTRON_VERSION' or m.version('os-vif') != '$OS_VIF_VERSION')" \
      2>/dev/null; then
    return
  fi
  mkdir -p "$COMPAT_DIR"
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q -U pip wheel 2>&1 | grep -v '^WARNING: Location' || true
  # os-vif: the tests plug ports with the library nova-compute uses.
  "$VENV/bin/pip" install -q "neutron==$NEUTRON_VERSION" "os-vif==$OS_VIF_VERSION" PyMySQL \
    gunicorn 2>&1 | grep -v '^WARNING: Location' || true
  PYTHONWARNINGS=ignore "$VENV/bin/python" -c "import neutron, vif_plug_ovs, pymysql" 2>/dev/null \
    || die "the Neutron virtualenv $VENV is incomplete"
  step "installed Neutron $NEUTRON_VERSION and os-vif $OS_VIF_VERSION into $VENV"
}

# ------------------------------------------------------------------------ namespaces
ensure_netns() {
  [ -e "/run/netns/$1" ] || ip netns add "$1"
  ip -n "$1" link set lo up
}

# --------------------------------------------------------------------------- OVS/OVN
daemon() {
  # A C daemon that detaches by itself; none of our descriptors go with it, and its
  # start-up chatter goes to its log directory.
  (close_inherited_fds && "$@" 2>>"$LOG/daemons.err")
}

start_chassis() {
  chassis "$1"
  ensure_netns "$C_NS"
  [ -f "$S/ovs/conf$C_SFX.db" ] \
    || ovsdb-tool create "$S/ovs/conf$C_SFX.db" /usr/share/openvswitch/vswitch.ovsschema
  alive "$RUN/ovsdb-server$C_SFX.pid" || daemon ovsdb-server "$S/ovs/conf$C_SFX.db" \
    --remote=punix:"$RUN/db$C_SFX.sock" --remote=db:Open_vSwitch,Open_vSwitch,manager_options \
    --pidfile="$RUN/ovsdb-server$C_SFX.pid" --log-file="$LOG/ovsdb-server$C_SFX.log" \
    --unixctl="$RUN/ovsdb-server$C_SFX.ctl" --detach
  cvsctl --no-wait init
  mkdir -p "$C_RUNDIR"
  alive "$RUN/ovs-vswitchd$C_SFX.pid" || OVS_RUNDIR=$C_RUNDIR daemon \
    nsenter --net=/run/netns/"$C_NS" ovs-vswitchd "$C_DB" --pidfile="$RUN/ovs-vswitchd$C_SFX.pid" \
    --log-file="$LOG/ovs-vswitchd$C_SFX.log" --unixctl="$RUN/ovs-vswitchd$C_SFX.ctl" --detach
  # The chassis, under the hostname nova-compute's host must have. The first is the
  # gateway (routers' external ports, floating IPs' NAT) and holds the public bridge.
  local gateway=()
  [ "$1" = 1 ] && gateway=(external_ids:ovn-bridge-mappings=public:br-ex
                           external_ids:ovn-cms-options=enable-chassis-as-gw)
  cvsctl set Open_vSwitch . external_ids:system-id="$C_HOST" \
    external_ids:hostname="$C_HOST" external_ids:ovn-remote="$SB" \
    external_ids:ovn-encap-type=geneve external_ids:ovn-encap-ip="$C_ENCAP" \
    external_ids:ovn-bridge-datapath-type=netdev "${gateway[@]}"
  # ovn-controller 23.03 has no --unixctl: it uses $OVN_RUNDIR/ovn-controller.PID.ctl.
  alive "$RUN/ovn-controller$C_SFX.pid" || OVS_RUNDIR=$C_RUNDIR daemon \
    nsenter --net=/run/netns/"$C_NS" ovn-controller "$C_DB" --pidfile="$RUN/ovn-controller$C_SFX.pid" \
    --log-file="$LOG/ovn-controller$C_SFX.log" --detach
}

# Re-add a system port whose device was (re)created: the netdev datapath never reopens a
# device under an old port's name, and one transaction (or --may-exist) is not enough.
readd_port() {
  cvsctl --if-exists del-port "$1" "$2"
  cvsctl add-port "$1" "$2"
}

# Geneve between the two chassis: a veth ul1/ul2 in br-ul of each, the tunnel address on
# br-ul's internal port, where OVS's userspace tunnelling looks for its route.
start_underlay() {
  local i fresh=0
  if ! ip -n "$HV_NS" link show ul1 >/dev/null 2>&1; then
    ip -n "$HV_NS" link add ul1 type veth peer name ul2 netns "$HV_NS2"
    fresh=1
  fi
  for i in 1 2; do
    chassis "$i"
    nsenter --net=/run/netns/"$C_NS" ethtool -K "ul$i" tx off >/dev/null
    ip -n "$C_NS" link set "ul$i" up
    cvsctl --may-exist add-br br-ul -- set Bridge br-ul datapath_type=netdev
    if [ "$fresh" = 1 ]; then readd_port br-ul "ul$i"; else cvsctl --may-exist add-port br-ul "ul$i"; fi
    for _ in $(seq 50); do ip -n "$C_NS" link show br-ul >/dev/null 2>&1 && break; sleep 0.1; done
    ip -n "$C_NS" addr replace "$C_ENCAP/24" dev br-ul
    ip -n "$C_NS" link set br-ul up
  done
}

start_ovs_ovn() {
  mkdir -p "$RUN" "$LOG" "$S/ovs" "$S/ovn"
  ensure_netns "$PUB_NS"
  local db i
  for db in nb sb; do
    [ -f "$S/ovn/ovn${db}_db.db" ] \
      || ovsdb-tool create "$S/ovn/ovn${db}_db.db" "/usr/share/ovn/ovn-$db.ovsschema"
  done
  alive "$RUN/ovnnb_db.pid" || daemon ovsdb-server "$S/ovn/ovnnb_db.db" \
    --remote=punix:"$RUN/ovnnb_db.sock" --remote=db:OVN_Northbound,NB_Global,connections \
    --pidfile="$RUN/ovnnb_db.pid" --log-file="$LOG/ovsdb-nb.log" \
    --unixctl="$RUN/ovnnb_db.ctl" --detach
  alive "$RUN/ovnsb_db.pid" || daemon ovsdb-server "$S/ovn/ovnsb_db.db" \
    --remote=punix:"$RUN/ovnsb_db.sock" --remote=db:OVN_Southbound,SB_Global,connections \
    --pidfile="$RUN/ovnsb_db.pid" --log-file="$LOG/ovsdb-sb.log" \
    --unixctl="$RUN/ovnsb_db.ctl" --detach
  ovn-nbctl --db="$NB" --no-wait init
  alive "$RUN/ovn-northd.pid" || daemon ovn-northd --ovnnb-db="$NB" --ovnsb-db="$SB" \
    --pidfile="$RUN/ovn-northd.pid" --log-file="$LOG/ovn-northd.log" \
    --unixctl="$RUN/ovn-northd.ctl" --detach
  for i in $(seq "$CHASSIS_COUNT"); do start_chassis "$i"; done
  [ "$CHASSIS_COUNT" = 1 ] || start_underlay
  chassis 1
  vsctl --may-exist add-br br-ex -- set Bridge br-ex datapath_type=netdev
  if ! ip -n "$PUB_NS" link show pub-gw >/dev/null 2>&1; then
    ip -n "$HV_NS" link add pub-ex type veth peer name pub-gw netns "$PUB_NS"
    # Userspace datapath: no checksum offload on either end (else TCP is dropped).
    in_hv ethtool -K pub-ex tx off >/dev/null
    in_pub ethtool -K pub-gw tx off >/dev/null
    ip -n "$HV_NS" link set pub-ex up
    ip -n "$PUB_NS" addr add "$PUBLIC_GW/${PUBLIC_CIDR#*/}" dev pub-gw
    ip -n "$PUB_NS" link set pub-gw up
    readd_port br-ex pub-ex
  fi
  vsctl --may-exist add-port br-ex pub-ex
  for i in $(seq "$CHASSIS_COUNT"); do
    chassis "$i"
    for _ in $(seq 50); do
      cvsctl br-exists br-int && break
      sleep 0.1
    done
    cvsctl br-exists br-int \
      || die "ovn-controller did not create br-int; see $LOG/ovn-controller$C_SFX.log"
  done
  local hosts=$CHASSIS_HOST
  [ "$CHASSIS_COUNT" = 1 ] || hosts="$CHASSIS_HOST in $HV_NS, $CHASSIS_HOST2 in $HV_NS2"
  step "OVS and OVN up (chassis $hosts; $PUBLIC_GW in $PUB_NS)"
}

# -------------------------------------------------------------------------- Neutron
# shellcheck source=tools/neutron_conf.sh
. tools/neutron_conf.sh

setup_db() {
  local stamp="$S/db-migrated"
  mysql --socket="$MYSQL_SOCKET" -u root -e \
    "CREATE DATABASE IF NOT EXISTS $DB_NAME CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$NEUTRON_VERSION $DB_NAME" ]; then
    "$VENV/bin/neutron-db-manage" --config-file "$ETC/neutron.conf" \
      --config-file "$ETC/ml2_conf.ini" upgrade heads >"$LOG/db-manage.log" 2>&1 \
      || { tail -n 20 "$LOG/db-manage.log" >&2; exit 1; }
    echo "$NEUTRON_VERSION $DB_NAME" > "$stamp"
    step "database $DB_NAME migrated"
  fi
  if [ ! -e "$S/vhost-created" ]; then
    rabbitmqctl -q add_vhost "$VHOST" >/dev/null 2>&1 || true
    rabbitmqctl -q set_permissions -p "$VHOST" guest '.*' '.*' '.*' >/dev/null
    touch "$S/vhost-created"
  fi
}

api_answers() { curl -fsS -o /dev/null --max-time 3 "$URL/" 2>/dev/null; }

start_api() {
  alive "$RUN/neutron-api.pid" && api_answers && return
  # Neutron parses sys.argv with oslo.config: every gunicorn setting goes in the file it
  # reads from its working directory. ASGI_WORKERS tells the OVN hash ring how many API
  # workers there are (outside uWSGI/mod_wsgi it cannot tell).
  cat > "$S/gunicorn.conf.py" <<EOF
"""gunicorn settings for the test Neutron API (written by tools/neutron.sh)."""
wsgi_app = 'neutron.wsgi.api:application'
bind = '$HOST:$PORT'
workers = 1
threads = 8
timeout = 120
# The API process ignores SIGTERM: gunicorn kills it once this has passed.
graceful_timeout = 3
daemon = True
pidfile = '$RUN/neutron-api.pid'
accesslog = '$LOG/neutron-access.log'
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'
errorlog = '$LOG/gunicorn.log'
capture_output = True
control_socket_disable = True
raw_env = ['OS_NEUTRON_CONFIG_DIR=$ETC', 'OS_NEUTRON_CONFIG_FILES=neutron.conf;ml2_conf.ini',
           'ASGI_WORKERS=1']
EOF
  (cd "$S" && close_inherited_fds && exec "$VENV/bin/gunicorn")
}

# A Python daemon in a session (and process group) of its own, pid in $1. It runs in the
# state directory: a checkout it was started from may be removed while it runs (haproxy,
# which the metadata agent starts, fails without a working directory).
spawn() {
  local pidfile=$1 logfile=$2
  shift 2
  (cd "$S" && close_inherited_fds && exec setsid "$@" >"$logfile" 2>&1 </dev/null) &
  echo $! > "$pidfile"
}

start_workers() {
  alive "$RUN/maintenance.pid" || spawn "$RUN/maintenance.pid" "$LOG/maintenance.out" \
    "$VENV/bin/neutron-ovn-maintenance-worker" --config-file "$ETC/neutron.conf" \
    --config-file "$ETC/ml2_conf.ini" --log-file "$LOG/maintenance.log"
  # nsenter, not "ip netns exec": the latter's private mount namespace would hide the
  # ovnmeta-* namespaces the agent creates from everyone else. Both agents name them
  # after the network, so the second chassis' agent gets a /run/netns of its own (in a
  # mount namespace of its own).
  local i
  for i in $(seq "$CHASSIS_COUNT"); do
    chassis "$i"
    alive "$RUN/metadata-agent$C_SFX.pid" && continue
    local private=()
    [ "$i" = 1 ] || private=(unshare -m --propagation private sh -c \
      'mount --bind "$0" /run/netns && exec "$@"' "$S/netns$C_SFX")
    spawn "$RUN/metadata-agent$C_SFX.pid" "$LOG/metadata-agent$C_SFX.out" \
      env PATH="$S/bin:$VENV/bin:$PATH" nsenter --net=/run/netns/"$C_NS" "${private[@]}" \
      "$VENV/bin/neutron-ovn-metadata-agent" --config-file "$ETC/metadata_agent$C_SFX.ini"
  done
  if ! alive "$RUN/relay.pid"; then
    local rules="" p
    for p in $PUBLIC_PORTS; do rules="$rules $PUB_NS@127.0.0.1:$p=127.0.0.1:$p"; done
    for i in $(seq "$CHASSIS_COUNT"); do
      chassis "$i"
      rules="$rules $C_NS@127.0.0.1:$METADATA_PORT=127.0.0.1:$METADATA_PORT"
      for p in $(seq "${C_DISPLAY%%:*}" "${C_DISPLAY##*:}"); do
        rules="$rules 127.0.0.1:$p=$C_NS@127.0.0.1:$p"
      done
    done
    # shellcheck disable=SC2086
    spawn "$RUN/relay.pid" "$LOG/relay.log" python3 "$REPO/tools/netns_relay.py" $rules
  fi
}

start_libvirtd() {
  chassis "$1"
  # The daemon must not keep this script's lock (fd 9) open.
  close_inherited_fds
  NOVA_LIBVIRT_PEER_ROOT=$C_LIBVIRT_ROOT NOVA_LIBVIRT_PEER_NETNS=$C_NS \
    NOVA_LIBVIRT_PEER_UUID=$C_UUID NOVA_LIBVIRT_PEER_DISPLAY_PORTS=$C_DISPLAY \
    NOVA_LIBVIRT_PEER_WEBSOCKET_PORTS=$C_WEBSOCKET tools/start-libvirtd-peer.sh start \
    >"$LOG/libvirtd-start$C_SFX.log" 2>&1
}

wait_api() {
  for _ in $(seq 120); do
    api_answers && return 0
    # gunicorn writes its pid file once it has daemonized: only a written one counts.
    [ -s "$RUN/neutron-api.pid" ] && ! alive "$RUN/neutron-api.pid" && break
    sleep 0.5
  done
  tail -n 30 "$LOG/gunicorn.log" "$LOG/neutron-server.log" >&2 || true
  die "the Neutron API does not answer on $URL; see $LOG/"
}

setup_py() {
  NOVA_COMPAT_DIR=$COMPAT_DIR NOVA_COMPAT_PASSWORD=$PASSWORD \
    NOVA_COMPAT_KEYSTONE_URL=$KEYSTONE_URL NOVA_NEUTRON_URL=$URL \
    NOVA_NEUTRON_STATE=$S NOVA_NEUTRON_HOST=$CHASSIS_HOST NOVA_NEUTRON_HV_NETNS=$HV_NS \
    NOVA_NEUTRON_PUBLIC_NETNS=$PUB_NS NOVA_NEUTRON_PUBLIC_CIDR=$PUBLIC_CIDR \
    NOVA_NEUTRON_PUBLIC_GATEWAY=$PUBLIC_GW NOVA_NEUTRON_METADATA_PORT=$METADATA_PORT \
    NOVA_NEUTRON_LIBVIRT_URI=$LIBVIRT_URI NOVA_NEUTRON_OVSDB=$OVSDB \
    NOVA_NEUTRON_OVN_NB=$NB NOVA_NEUTRON_OVN_SB=$SB NOVA_NEUTRON_VENV=$VENV \
    NOVA_NEUTRON_PUBLIC_PORTS=$PUBLIC_PORTS NOVA_NEUTRON_DISPLAY_PORTS=$DISPLAY_PORTS \
    NOVA_NEUTRON_CHASSIS=$CHASSIS_COUNT NOVA_NEUTRON_HOST_2=$CHASSIS_HOST2 \
    NOVA_NEUTRON_HV_NETNS_2=$HV_NS2 NOVA_NEUTRON_UNDERLAY_NET=$UNDERLAY_NET \
    NOVA_NEUTRON_LIBVIRT_URI_2="qemu+unix:///system?socket=$S/libvirt-2/run/libvirt-sock" \
    NOVA_NEUTRON_OVSDB_2=unix:$RUN/db-2.sock NOVA_NEUTRON_DISPLAY_PORTS_2=7200:7249 \
    python3 "$REPO/tools/neutron_setup.py" "$@"
}

start() {
  curl -fsS -o /dev/null --max-time 5 "$KEYSTONE_URL" \
    || die "Keystone does not answer at $KEYSTONE_URL; run tools/keystone.sh first"
  [ -S "$MYSQL_SOCKET" ] || die "no MariaDB socket at $MYSQL_SOCKET"
  [ "$(id -u)" = 0 ] || die "needs root (network namespaces, OVS, libvirtd)"
  install
  start_ovs_ovn
  write_conf
  setup_db
  # The slow starters first; the Keystone registration overlaps their start-up.
  start_api
  start_workers
  local libvirt_jobs="" i
  for i in $(seq "$CHASSIS_COUNT"); do
    start_libvirtd "$i" &
    libvirt_jobs="$libvirt_jobs $!"
  done
  setup_py keystone
  step "registered in Keystone (user neutron, network endpoint $URL)"
  wait_api
  step "Neutron API answers on $URL"
  setup_py resources
  step "public network, default subnet pool and agents ready"
  local job
  for job in $libvirt_jobs; do
    wait "$job" || { cat "$LOG"/libvirtd-start*.log >&2; die "a hypervisor's libvirtd did not start"; }
  done
  step "libvirtd of each hypervisor answers ($LIBVIRT_URI, ...)"
  echo "neutron: ready at $URL; settings in $ENV_FILE"
}

# ---------------------------------------------------------------------------- stop
descendants() {
  # Every process whose parent chain leads to $1 (privsep helpers, haproxy before it
  # detaches), so each can be stopped by its id.
  ps -e -o pid=,ppid= | awk -v root="$1" '{ parent[$1] = $2 }
    END { for (pid in parent) { p = pid
            while ((p in parent) && p != root && p > 1) p = parent[p]
            if (p == root && pid != root) print pid } }'
}

# Stop the daemons of the given pid files together: SIGTERM to each and its descendants,
# up to 3 s for them to go, then SIGKILL (the Neutron API ignores SIGTERM, and a graceful
# oslo.service shutdown buys tests nothing).
stop_pids() {
  local pidfile pid pids="" names=""
  for pidfile in "$@"; do
    if alive "$pidfile"; then
      pid=$(cat "$pidfile")
      pids="$pids $pid $(descendants "$pid" | tr '\n' ' ')"
      names="$names $(basename "$pidfile" .pid)"
    fi
    rm -f "$pidfile"
  done
  [ -n "$pids" ] || return 0
  # shellcheck disable=SC2086
  kill $pids 2>/dev/null || true
  for _ in $(seq 30); do
    # shellcheck disable=SC2086
    kill -0 $pids 2>/dev/null || break
    sleep 0.1
  done
  # shellcheck disable=SC2086
  kill -9 $pids 2>/dev/null || true
  echo "neutron: stopped$names"
}

stop() {
  local i dom ns
  for i in 1 2; do
    chassis "$i"
    [ -S "$C_LIBVIRT_ROOT/run/libvirt-sock" ] || continue
    for dom in $(virsh -c "$C_LIBVIRT_URI" list --all --name 2>/dev/null); do
      virsh -c "$C_LIBVIRT_URI" destroy "$dom" >/dev/null 2>&1 || true
      virsh -c "$C_LIBVIRT_URI" undefine --nvram "$dom" >/dev/null 2>&1 \
        || virsh -c "$C_LIBVIRT_URI" undefine "$dom" >/dev/null 2>&1 || true
    done
    stop_pids "$C_LIBVIRT_ROOT/virtlogd.pid" "$C_LIBVIRT_ROOT/libvirtd.pid"
  done
  [ -f "$ENV_FILE" ] && setup_py deregister 2>/dev/null || true
  stop_pids "$RUN/relay.pid" "$RUN"/metadata-agent*.pid "$RUN/maintenance.pid" \
    "$RUN/neutron-api.pid" "$S"/agent*/external/pids/*.pid
  stop_pids "$RUN"/ovn-controller*.pid "$RUN/ovn-northd.pid" "$RUN"/ovs-vswitchd*.pid \
    "$RUN/ovnsb_db.pid" "$RUN/ovnnb_db.pid" "$RUN"/ovsdb-server*.pid
  for ns in $(ls /run/netns 2>/dev/null | grep '^ovnmeta-' || true) "$PUB_NS" "$HV_NS" \
      "$HV_NS2"; do
    [ -e "/run/netns/$ns" ] && ip netns delete "$ns" && echo "neutron: deleted namespace $ns"
  done
  rm -f "$ENV_FILE"
}

status() {
  local rc=0 name pidfile i
  for pidfile in "$RUN"/*.pid; do
    [ -e "$pidfile" ] || continue
    name=$(basename "$pidfile" .pid)
    if alive "$pidfile"; then
      echo "neutron: $name running (pid $(cat "$pidfile"))"
    else
      echo "neutron: $name not running"; rc=1
    fi
  done
  for i in $(seq "$CHASSIS_COUNT"); do
    chassis "$i"
    if virsh -c "$C_LIBVIRT_URI" version >/dev/null 2>&1; then
      echo "neutron: libvirtd in $C_NS answers on $C_LIBVIRT_URI"
    else
      echo "neutron: libvirtd in $C_NS not answering"; rc=1
    fi
  done
  api_answers && echo "neutron: API answers on $URL" || { echo "neutron: API not answering"; rc=1; }
  return $rc
}

reset() {
  stop
  mysql --socket="$MYSQL_SOCKET" -u root -e "DROP DATABASE IF EXISTS $DB_NAME" || true
  [ -e "$S/vhost-created" ] && { rabbitmqctl -q delete_vhost "$VHOST" >/dev/null 2>&1 || true; }
  rm -rf "$S"
  echo "neutron: state removed (the venv is kept)"
}

# One start/stop at a time: the stack is shared by everyone on the machine.
if [ "${1:-start}" != status ]; then
  mkdir -p "$COMPAT_DIR"
  exec 9>"$COMPAT_DIR/neutron.lock"
  flock -w 900 9 || die "another tools/neutron.sh holds $COMPAT_DIR/neutron.lock"
fi
case "${1:-start}" in
  start) start ;;
  restart) stop; start ;;
  stop) stop ;;
  status) status ;;
  reset) reset ;;
  *) echo "usage: $0 [start|restart|stop|status|reset]" >&2; exit 2 ;;
esac

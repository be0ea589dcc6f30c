# Sourced by tools/neutron.sh: write_conf writes Neutron's, the metadata agents' and the
# shims' files from that script's settings (rewritten at each start).
# shellcheck shell=bash disable=SC2154
write_conf() {
  mkdir -p "$ETC" "$S/state" "$S/locks" "$S/bin"
  [ -s "$S/metadata-secret" ] || head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' \
    > "$S/metadata-secret"
  cp "$VENV/etc/neutron/api-paste.ini" "$ETC/api-paste.ini"
  local authtoken
  authtoken="auth_url = $KEYSTONE_URL
auth_type = password
username = neutron
password = $PASSWORD
project_name = service
user_domain_name = Default
project_domain_name = Default
region_name = RegionOne"
  cat > "$ETC/neutron.conf" <<EOF
# Written by tools/neutron.sh; rewritten at each start.
[DEFAULT]
core_plugin = ml2
service_plugins = ovn-router,auto_allocate
auth_strategy = keystone
bind_host = $HOST
bind_port = $PORT
host = $CHASSIS_HOST
state_path = $S/state
api_paste_config = $ETC/api-paste.ini
transport_url = rabbit://guest:guest@127.0.0.1:5672/$VHOST
rpc_workers = 0
rpc_state_report_workers = 0
api_workers = 1
# Port status changes reach nova's os-server-external-events within a second.
send_events_interval = 1
# With the default (openstacklocal) ports never show the dns_name nova sets.
dns_domain = compat.test.
log_file = $LOG/neutron-server.log
use_stderr = false

[database]
connection = mysql+pymysql://root@localhost/$DB_NAME?unix_socket=$MYSQL_SOCKET&charset=utf8mb4
max_pool_size = 10
max_overflow = 20

[keystone_authtoken]
www_authenticate_uri = $KEYSTONE_URL
$authtoken
service_token_roles_required = true

[nova]
# network-vif-plugged and friends go to the catalog's compute endpoint with a token of
# the neutron service user (admin and service roles in the service project).
$authtoken
endpoint_type = public

[oslo_concurrency]
lock_path = $S/locks

[oslo_messaging_notifications]
driver = noop

[agent]
root_helper = sudo
EOF
  cat > "$ETC/ml2_conf.ini" <<EOF
# Written by tools/neutron.sh; rewritten at each start.
[ml2]
mechanism_drivers = ovn
type_drivers = local,flat,vlan,geneve
tenant_network_types = geneve
extension_drivers = port_security,dns

[ml2_type_geneve]
vni_ranges = 1:65536
max_header_size = 38

[ml2_type_flat]
flat_networks = public

[ovn]
ovn_nb_connection = $NB
ovn_sb_connection = $SB
ovn_metadata_enabled = true
# Handed to guests by DHCP; empty would hand them this machine's resolvers. Nothing
# answers on the public gateway: guests simply have no name service.
dns_servers = $PUBLIC_GW
# os-vif creates the taps (the upstream default; see the header of tools/neutron.sh).
ovs_create_tap = true
EOF
  local i
  for i in $(seq "$CHASSIS_COUNT"); do
    chassis "$i"
    mkdir -p "$S/agent$C_SFX" "$S/netns$C_SFX"
    cat > "$ETC/metadata_agent$C_SFX.ini" <<EOF
# Written by tools/neutron.sh; rewritten at each start. The agent runs in $C_NS, where
# 127.0.0.1:$METADATA_PORT is relayed to the same port of the root namespace.
[DEFAULT]
nova_metadata_host = 127.0.0.1
nova_metadata_port = $METADATA_PORT
metadata_proxy_shared_secret = $(cat "$S/metadata-secret")
state_path = $S/agent$C_SFX
metadata_proxy_socket = $RUN/metadata_proxy$C_SFX
log_file = $LOG/metadata-agent$C_SFX.log
use_stderr = false

[ovs]
ovsdb_connection = $C_DB

[ovn]
ovn_sb_connection = $SB

[agent]
root_helper = sudo
EOF
  done
  # No sudo on these machines: the agent and oslo.privsep run "sudo CMD" as root.
  printf '#!/bin/sh\n# tools/neutron.sh: the metadata agent runs as root already.\nexec "$@"\n' \
    > "$S/bin/sudo"
  chmod 0755 "$S/bin/sudo"
  mkdir -p "$S/tempest-bin"
  # tempest pings guests with iputils' ping (its MTU check needs "-M do"); busybox's
  # (no -M) only where iputils is missing.
  if command -v ping >/dev/null; then
    ln -sfn "$(command -v ping)" "$S/tempest-bin/ping"
  else
    ln -sfn "$(command -v busybox)" "$S/tempest-bin/ping"
  fi
}

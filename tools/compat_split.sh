# The split services of the compatibility runs (sourced by tools/run-compat.sh and
# tools/run-compat-neutron.sh): nova-api, nova-conductor, the embedded image and volume
# endpoints (tools/compat_endpoints.py) and two nova-compute, on a throwaway RabbitMQ vhost
# and PostgreSQL database.
#
# The caller sets REPO, PY, VENV_BIN, NOVA_RUN (array), COMPAT_DIR, WORK, PG_URL,
# RABBIT_URL, SPLIT_IMAGE_URL, and optionally
#   SPLIT_CONFS        extra --config-file arguments of every service (array)
#   SPLIT_HOST1_CONFS  extra --config-file arguments of the first nova-compute (array)
#   SPLIT_HOST2_CONFS  extra --config-file arguments of the second nova-compute (array)
# split_start starts them and waits until both compute hosts are registered; split_stop
# (from the caller's cleanup) stops them and drops the vhost and the database.

SPLIT_PIDS=""
SPLIT_DB=""
SPLIT_VHOST=""
declare -a SPLIT_CONFS SPLIT_HOST1_CONFS SPLIT_HOST2_CONFS

split_start() {
  local pid binary up
  SPLIT_DB=nova_compat_$(date +%s)_$$
  # A broker of its own (a throwaway vhost on the local RabbitMQ): oslo.messaging names a
  # topic's queue after the topic alone ("conductor", "compute.<host>") and binds it to
  # every exchange that uses it, so a private control_exchange does not keep another
  # deployment's nova-conductor (a functional test's, say) from taking this run's calls.
  if [ -z "${NOVA_COMPAT_RABBIT_URL:-}" ] && command -v rabbitmqctl >/dev/null; then
    SPLIT_VHOST=$SPLIT_DB
    rabbitmqctl -q add_vhost "$SPLIT_VHOST" >/dev/null
    rabbitmqctl -q set_permissions -p "$SPLIT_VHOST" guest '.*' '.*' '.*' >/dev/null
    RABBIT_URL=${RABBIT_URL%/}/$SPLIT_VHOST
  else
    echo "compat: sharing the RabbitMQ vhost of $RABBIT_URL; other nova services on it" \
         "may take this run's calls" >&2
  fi
  local db_url
  db_url=$("$PY" "$REPO/tools/compat_db.py" create "$PG_URL" "$SPLIT_DB")
  # etc/nova/aio-keystone.conf's choices, for separate processes.
  cat > "$WORK/split.conf" <<EOF
[DEFAULT]
state_path = $WORK/state
transport_url = $RABBIT_URL
control_exchange = nova-compat-$$
host = compat-split
instance_name_template = compat-%08x
cpu_allocation_ratio = 16.0
api_listen = 127.0.0.1
api_listen_port = 8774
metadata_listen = 127.0.0.1
report_interval = 2

[database]
connection = $db_url

[api]
auth_strategy = keystone

[aio]
listen = 127.0.0.1
image_port = 9292
volume_port = 8776

[glance]
endpoint_override = $SPLIT_IMAGE_URL
auth_section = keystone_authtoken

[cinder]
endpoint_override = http://127.0.0.1:8776
auth_section = keystone_authtoken

[libvirt]
connection_uri = qemu:///system

[spice]
# The guests get SPICE as under nova-aio (tempest's spice-direct test needs no proxy).
enabled = true
EOF
  # The second compute host has an instance directory of its own.
  printf '[DEFAULT]\nhost = compat-split-2\ninstances_path = %s\n' \
    "$WORK/state-host2/instances" > "$WORK/split-host2.conf"
  local conf=(--config-file "$WORK/split.conf"
              --config-file "$COMPAT_DIR/keystone_authtoken.conf" "${SPLIT_CONFS[@]}")
  "${NOVA_RUN[@]}" "$VENV_BIN/nova-manage" "${conf[@]}" db sync >"$WORK/nova-manage.log" 2>&1
  "${NOVA_RUN[@]}" "$VENV_BIN/nova-manage" "${conf[@]}" flavor seed \
    >>"$WORK/nova-manage.log" 2>&1
  "${NOVA_RUN[@]}" "$PY" "$REPO/tools/compat_endpoints.py" "${conf[@]}" \
    >"$WORK/endpoints.log" 2>&1 &
  SPLIT_PIDS="$!"
  "${NOVA_RUN[@]}" "$VENV_BIN/nova-compute" "${conf[@]}" --config-file "$WORK/split-host2.conf" \
    "${SPLIT_HOST2_CONFS[@]}" >"$WORK/nova-compute-2.log" 2>&1 &
  SPLIT_PIDS="$! $SPLIT_PIDS"
  for binary in nova-conductor nova-compute nova-api; do
    if [ "$binary" = nova-compute ]; then
      "${NOVA_RUN[@]}" "$VENV_BIN/$binary" "${conf[@]}" "${SPLIT_HOST1_CONFS[@]}" \
        >"$WORK/$binary.log" 2>&1 &
    else
      "${NOVA_RUN[@]}" "$VENV_BIN/$binary" "${conf[@]}" >"$WORK/$binary.log" 2>&1 &
    fi
    SPLIT_PIDS="$! $SPLIT_PIDS"
  done
  up=0
  for _ in $(seq 120); do
    for pid in $SPLIT_PIDS; do
      kill -0 "$pid" 2>/dev/null \
        || { echo "compat: a split service exited" >&2; tail -n 20 "$WORK"/*.log >&2
             return 1; }
    done
    if grep -q 'compat endpoints ready' "$WORK/endpoints.log" \
        && curl -fsS -o /dev/null --max-time 3 http://127.0.0.1:8774/ \
        && "$PY" "$REPO/tools/compat_db.py" has-compute "$db_url" 2; then
      up=1; break
    fi
    sleep 1
  done
  [ "$up" = 1 ] || { echo "compat: the split services did not start" >&2
                     tail -n 20 "$WORK"/*.log >&2; return 1; }
  echo "compat: split services up (nova-api, nova-conductor, two nova-compute, endpoints)"
}

split_stop() {
  local pid
  # nova-api first, the endpoints last (in-flight builds still call them).
  for pid in $SPLIT_PIDS; do
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 75); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  done
  [ -n "$SPLIT_DB" ] && "$PY" "$REPO/tools/compat_db.py" drop "$PG_URL" "$SPLIT_DB" || true
  [ -n "$SPLIT_VHOST" ] && rabbitmqctl -q delete_vhost "$SPLIT_VHOST" >/dev/null 2>&1 || true
}

#!/usr/bin/env bash
# Networking pass: upstream tempest's compute API tests and compute scenarios on the real Neutron.
#
# Needs tools/keystone.sh and tools/neutron.sh (ML2/OVN, hypervisor and public namespaces;
# $NOVA_COMPAT_DIR/neutron.env). Starts nova-aio in keystone mode with the [neutron],
# os-vif and libvirt settings of neutron/nova-neutron.conf (guests on the hypervisor
# namespace's libvirtd, ports bound to its chassis, no embedded network endpoint), the
# metadata API on the port the metadata agent's relay reaches, makes the SSH guest image
# (nova/tests/fixtures/sshguest.py) and its flavor, renders etc/tempest/tempest.conf.in with
# neutron/tempest-neutron.conf over it ([service_available] neutron, validation over
# floating IPs) and runs tempest inside the public namespace, where the floating IPs answer
# and the API ports are relayed:
#   tempest run --regex "$NOVA_COMPAT_NEUTRON_REGEX" --exclude-list etc/tempest/exclude-list-neutron.txt
# prints "compat-neutron: N passed, N failed, N skipped", exits non-zero on a failure and
# stops what it started. NOVA_COMPAT_KEEP=1 keeps the workspace. NOVA_COMPAT_TOPOLOGY=split
# runs the same tests against the split services (tools/compat_split.sh: nova-api with the
# metadata API, nova-conductor, and two nova-compute, one per hypervisor namespace and
# chassis, on a throwaway RabbitMQ vhost and PostgreSQL database): tempest's multi-node
# tests (cold and live migration between the chassis) run there.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
COMPAT_DIR=${NOVA_COMPAT_DIR:-/var/lib/nova-compat}
export NOVA_COMPAT_DIR=$COMPAT_DIR
VENV_BIN=${NOVA_VENV:-$REPO/.venv}/bin
PY=$VENV_BIN/python
NOVA_RUN=(env "PYTHONPATH=$REPO${PYTHONPATH:+:$PYTHONPATH}")
SCENARIOS='test_server_basic_ops|test_minimum_basic|test_network_basic_ops|test_volume_boot_pattern|test_snapshot_pattern|test_shelve_instance|test_stamp_pattern'
# The moves between chassis (tempest's multi-node tests, tempest.api.compute's among them,
# skip with one compute host, as in the aio topology).
if [ "${NOVA_COMPAT_TOPOLOGY:-aio}" = split ]; then
  SCENARIOS="$SCENARIOS|test_network_advanced_server_ops|test_server_multinode"
fi
# All of tempest.api.compute and the compute scenarios.
REGEX=${NOVA_COMPAT_NEUTRON_REGEX:-"^tempest\.(scenario\.($SCENARIOS)|api\.compute\.)"}
# Three workers keep two cores busy: most of a test's time is spent waiting on a guest.
CONCURRENCY=${NOVA_COMPAT_NEUTRON_CONCURRENCY:-3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/nova-compat-neutron.XXXXXX")
AIO_PID=""
TOPOLOGY=${NOVA_COMPAT_TOPOLOGY:-aio}
PG_URL=${NOVA_COMPAT_PG_URL:-postgresql+psycopg2://postgres@127.0.0.1:5432/postgres}
RABBIT_URL=${NOVA_COMPAT_RABBIT_URL:-rabbit://guest:guest@127.0.0.1:5672/}
case "$TOPOLOGY" in
  aio|split) ;;
  *) echo "compat-neutron: NOVA_COMPAT_TOPOLOGY must be aio or split, not $TOPOLOGY" >&2
     exit 2 ;;
esac
# shellcheck source=tools/compat_split.sh
. tools/compat_split.sh

if [ ! -f "$COMPAT_DIR/neutron.env" ]; then
  echo "compat-neutron: $COMPAT_DIR/neutron.env is missing: run tools/neutron.sh start" >&2
  exit 1
fi
tools/keystone.sh start >/dev/null
TEMPEST_BIN=$(tools/tempest.sh)
# shellcheck disable=SC1091
. "$COMPAT_DIR/keystone.env"
# shellcheck disable=SC1091
. "$COMPAT_DIR/neutron.env"

cleanup() {
  local rc=$? dom uri
  split_stop
  if [ -n "$AIO_PID" ]; then
    kill "$AIO_PID" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$AIO_PID" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$AIO_PID" 2>/dev/null || true
  fi
  for uri in "$NOVA_NEUTRON_LIBVIRT_URI" ${NOVA_NEUTRON_LIBVIRT_URI_2:+"$NOVA_NEUTRON_LIBVIRT_URI_2"}; do
    for dom in $(virsh -c "$uri" list --all --name 2>/dev/null | grep '^compat-'); do
      virsh -c "$uri" destroy "$dom" >/dev/null 2>&1 || true
      virsh -c "$uri" undefine --nvram "$dom" >/dev/null 2>&1 \
        || virsh -c "$uri" undefine "$dom" >/dev/null 2>&1 || true
    done
  done
  if [ "${NOVA_COMPAT_KEEP:-0}" = 1 ] || [ "$rc" != 0 ]; then
    echo "compat-neutron: workspace kept in $WORK (nova-aio.log, tempest-run.log)"
  else
    rm -rf "$WORK"
  fi
  exit "$rc"
}
trap cleanup EXIT

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for port in 8774 9292 8776 6080 6082 6083 "$NOVA_NEUTRON_METADATA_PORT"; do
  port_free "$port" || { echo "compat-neutron: port $port is taken; stop what uses it" >&2
                         exit 1; }
done

if [ "$TOPOLOGY" = split ]; then
  # 1'. The split services, a nova-compute per chassis (nova-neutron.conf, -2.conf).
  [ -n "${NOVA_NEUTRON_NOVA_CONF_2:-}" ] \
    || { echo "compat-neutron: the split topology needs the test Neutron's second chassis" >&2
         exit 1; }
  mkdir -p "$WORK/state"
  SPLIT_IMAGE_URL=http://127.0.0.1:9292
  printf '[DEFAULT]\nenabled_apis = osapi_compute,metadata\n' > "$WORK/neutron-split.conf"
  SPLIT_CONFS=(--config-file "$NOVA_NEUTRON_NOVA_CONF" --config-file "$WORK/neutron-split.conf")
  SPLIT_HOST2_CONFS=(--config-file "$NOVA_NEUTRON_NOVA_CONF_2")
  split_start
else
  # 1. nova-aio on the real Neutron: one compute host, the chassis of the hypervisor namespace.
  mkdir -p "$WORK/state"
  cat > "$WORK/state.conf" <<EOF
[DEFAULT]
state_path = $WORK/state
enabled_apis = osapi_compute,metadata

[aio]
embedded_network = false
# One hypervisor namespace: a second host on the same libvirtd has no chassis of its own.
extra_compute_hosts =
EOF
  "${NOVA_RUN[@]}" "$VENV_BIN/nova-aio" --config-file etc/nova/aio-keystone.conf \
    --config-file "$COMPAT_DIR/keystone_authtoken.conf" --config-file "$NOVA_NEUTRON_NOVA_CONF" \
    --config-file "$WORK/state.conf" >"$WORK/nova-aio.log" 2>&1 &
  AIO_PID=$!
  for _ in $(seq 120); do
    grep -q 'nova-aio ready' "$WORK/nova-aio.log" && break
    kill -0 "$AIO_PID" 2>/dev/null || { tail -n 30 "$WORK/nova-aio.log" >&2; exit 1; }
    sleep 1
  done
  grep -q 'nova-aio ready' "$WORK/nova-aio.log" \
    || { echo "compat-neutron: nova-aio did not start" >&2; tail -n 30 "$WORK/nova-aio.log" >&2
         exit 1; }

fi

# 2. Images, flavors and tempest.conf: the SSH guest is image_ref and image_ref_alt.
NOVA_COMPAT_SSH_IMAGE=1 NOVA_COMPAT_CERTS_DIR=$WORK/state/certificates \
  "${NOVA_RUN[@]}" "$PY" tools/compat_resources.py > "$WORK/resources.env"
# shellcheck disable=SC1091
. "$WORK/resources.env"
MAX_MICROVERSION=$("$PY" -c 'from nova.api import microversion as mv; print(mv.MAX_VERSION)')
(cd "$WORK" && "$TEMPEST_BIN/tempest" init --workspace-path "$WORK/workspace.yaml" \
  --name compat-neutron tempest >/dev/null)
mkdir -p "$WORK/locks"
sed -e "s|@WORKDIR@|$WORK|g" -e "s|@PASSWORD@|$OS_PASSWORD|g" \
    -e "s|@KEYSTONE_URL@|$OS_AUTH_URL|g" -e "s|@IMAGE_REF@|$SSH_IMAGE_REF|g" \
    -e "s|@IMAGE_REF_ALT@|$SSH_IMAGE_REF|g" -e "s|@FLAVOR_REF@|$SSH_FLAVOR_REF|g" \
    -e "s|@FLAVOR_REF_ALT@|$SSH_FLAVOR_REF_ALT|g" -e "s|@MAX_MICROVERSION@|$MAX_MICROVERSION|g" \
    -e "s|@CERTIFIED_IMAGE_REF@|$CERTIFIED_IMAGE_REF|g" \
    -e "s|@MULTIATTACH_VOLUME_TYPE@|$MULTIATTACH_VOLUME_TYPE|g" \
    -e "s|@CERTIFIED_IMAGE_TRUSTED_CERTS@|$CERTIFIED_IMAGE_TRUSTED_CERTS|g" \
    etc/tempest/tempest.conf.in > "$WORK/tempest.conf.base"
# The scenarios that upload an image (test_minimum_basic) upload the SSH guest.
printf '[scenario]\nimg_file = %s\nimg_disk_format = raw\nimg_container_format = bare\n' \
  "$SSH_IMAGE_FILE" > "$WORK/tempest-image.conf"
# The aio topology has one compute host (no second chassis), so tempest's moves between
# hosts skip there (tempest.conf.in's min_compute_nodes = 2 holds for the split topology).
if [ "$TOPOLOGY" = aio ]; then
  printf '[compute]\nmin_compute_nodes = 1\n'
fi > "$WORK/tempest-topology.conf"
"$PY" tools/compat_conf_merge.py "$WORK/tempest.conf.base" "$NOVA_NEUTRON_TEMPEST_CONF" \
  etc/tempest/tempest-neutron.conf "$WORK/tempest-image.conf" "$WORK/tempest-topology.conf" \
  > "$WORK/tempest/etc/tempest.conf"

# 3. The run, in the public namespace (floating IPs answer there; the API ports are relayed).
set +e
export TEMPEST_CONFIG_DIR=$WORK/tempest/etc TEMPEST_CONFIG=tempest.conf
(cd "$WORK/tempest" && nsenter --net="/run/netns/$NOVA_NEUTRON_PUBLIC_NETNS" \
  env "PATH=$NOVA_NEUTRON_TEMPEST_PATH:$PATH" "$TEMPEST_BIN/tempest" run --regex "$REGEX" \
  --config-file "$WORK/tempest/etc/tempest.conf" --concurrency "$CONCURRENCY" \
  --exclude-list "$REPO/etc/tempest/exclude-list-neutron.txt") > "$WORK/tempest-run.log" 2>&1
RUN_RC=$?
set -e
grep -E '^\{[0-9]+\} .*(FAILED|SKIPPED)' "$WORK/tempest-run.log" | head -n 400 || true
tools/tempest-failures.sh "$WORK/tempest-run.log" "$WORK/nova-aio.log" "$WORK/tempest.log"
count() { sed -n "s/^ - $1: \([0-9]*\)$/\1/p" "${2:-$WORK/tempest-run.log}" | tail -n 1; }
PASSED=$(count Passed)
FAILED=$(count Failed)
SKIPPED=$(count Skipped)
if [ -z "$PASSED" ]; then
  tail -n 40 "$WORK/tempest-run.log"
  echo "compat-neutron: tempest did not report totals (exit $RUN_RC)" >&2
  exit 1
fi
# At most three failed tests run once more, one at a time (NOVA_COMPAT_RETRY=0: never):
# a real guest on a loaded two-core host can miss one of tempest's timeouts. A test that
# fails again fails the pass; one that passes the second time is named here, with what
# its first failure printed above.
if [ "${FAILED:-0}" -gt 0 ] && [ "${FAILED:-0}" -le 3 ] && [ "${NOVA_COMPAT_RETRY:-1}" = 1 ]; then
  tools/tempest-failed-ids.sh "$WORK/tempest-run.log" > "$WORK/retry-list.txt"
  echo "compat-neutron: running again: $(tr '\n' ' ' < "$WORK/retry-list.txt")"
  set +e
  (cd "$WORK/tempest" && nsenter --net="/run/netns/$NOVA_NEUTRON_PUBLIC_NETNS" \
    env "PATH=$NOVA_NEUTRON_TEMPEST_PATH:$PATH" "$TEMPEST_BIN/tempest" run \
    --include-list "$WORK/retry-list.txt" --config-file "$WORK/tempest/etc/tempest.conf" \
    --concurrency 1) > "$WORK/tempest-retry.log" 2>&1
  RETRY_RC=$?
  set -e
  grep -E '^\{[0-9]+\} .*(FAILED|\.\.\. ok)' "$WORK/tempest-retry.log" || true
  tools/tempest-failures.sh "$WORK/tempest-retry.log" "$WORK/nova-aio.log" "$WORK/tempest.log"
  RETRY_PASSED=$(count Passed "$WORK/tempest-retry.log")
  RETRY_FAILED=$(count Failed "$WORK/tempest-retry.log")
  if [ "$RETRY_RC" = 0 ] && [ "${RETRY_PASSED:-0}" -gt 0 ] && [ "${RETRY_FAILED:-0}" = 0 ]; then
    echo "compat-neutron: ${FAILED} failed the first time and passed the second:" \
         "$RETRY_PASSED passed"
    PASSED=$((PASSED + RETRY_PASSED))
    FAILED=0
    RUN_RC=0
  fi
fi
echo "compat-neutron: ${PASSED} passed, ${FAILED:-0} failed, ${SKIPPED:-0} skipped"
[ "$RUN_RC" = 0 ] && [ "${FAILED:-0}" = 0 ]

#!/usr/bin/env bash
# Compatibility stage: upstream tempest's compute API tests against nova-aio in keystone mode.
#
# Starts Keystone (tools/keystone.sh) unless it runs already, starts nova-aio with
# etc/nova/aio-keystone.conf (state in a temporary directory, ports 8774/9292/8776, console
# proxies 6080/6082/6083), makes
# test images and flavors, renders etc/tempest/tempest.conf.in, runs
#   tempest run --regex '^tempest\.api\.compute' --exclude-list etc/tempest/exclude-list.txt
# and prints "compat: N passed, N failed, N skipped". Exits non-zero on any failure; stops
# what it started. NOVA_COMPAT_REGEX narrows the run; NOVA_COMPAT_KEEP=1 keeps the workspace.
# Then, by default, tools/run-plugin.sh installs python-novaextclient and
# novaext-tempest-plugin into clean virtualenvs of their own (under $COMPAT_DIR/novaext,
# reused while their inputs are unchanged) and runs their tests (the client's unit and
# CLI/SDK tests, the plugin's API and guest scenario tests) against the same nova-aio; any
# failure there fails the stage. NOVA_COMPAT_PLUGIN=0 skips that part.
# NOVA_COMPAT_TOPOLOGY=split runs the same tests against the split services instead of
# nova-aio: nova-api, nova-conductor and two nova-compute (hosts compat-split and
# compat-split-2) as separate processes on RabbitMQ
# (NOVA_COMPAT_RABBIT_URL, else a throwaway vhost on the local broker) and a throwaway
# PostgreSQL database (NOVA_COMPAT_PG_URL), with the embedded image and volume endpoints
# served by tools/compat_endpoints.py. Not part of the default test command. NOVA_COMPAT_NETWORKLESS=1 also runs the tempest classes that
# skip only for want of a default network (see tools/compat_networkless/sitecustomize.py).
# NOVA_COMPAT_GLANCE=real serves images from a real Glance (tools/glance.sh, port 9393)
# instead of the embedded image endpoint: the catalog's image entries point at it for the
# run, and the service's [glance] client talks to it.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
COMPAT_DIR=${NOVA_COMPAT_DIR:-/var/lib/nova-compat}
export NOVA_COMPAT_DIR=$COMPAT_DIR
VENV_BIN=${NOVA_VENV:-$REPO/.venv}/bin
PY=$VENV_BIN/python
# The services run this checkout's code, not the one the virtualenv was installed from
# (the console scripts import the installed nova); tempest and the plugin keep their own.
NOVA_RUN=(env "PYTHONPATH=$REPO${PYTHONPATH:+:$PYTHONPATH}")
REGEX=${NOVA_COMPAT_REGEX:-'^tempest\.api\.compute'}
CONCURRENCY=${NOVA_COMPAT_CONCURRENCY:-2}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/nova-compat.XXXXXX")
AIO_PID=""
PEER_URI=""
STARTED_PEER=0
STARTED_KEYSTONE=0
TOPOLOGY=${NOVA_COMPAT_TOPOLOGY:-aio}
PG_URL=${NOVA_COMPAT_PG_URL:-postgresql+psycopg2://postgres@127.0.0.1:5432/postgres}
RABBIT_URL=${NOVA_COMPAT_RABBIT_URL:-rabbit://guest:guest@127.0.0.1:5672/}
GLANCE=${NOVA_COMPAT_GLANCE:-embedded}
GLANCE_URL=http://127.0.0.1:${NOVA_COMPAT_GLANCE_PORT:-9393}
REGISTERED_GLANCE=0
# shellcheck source=tools/compat_split.sh
. tools/compat_split.sh
case "$TOPOLOGY" in
  aio|split) ;;
  *) echo "compat: NOVA_COMPAT_TOPOLOGY must be aio or split, not $TOPOLOGY" >&2; exit 2 ;;
esac
case "$GLANCE" in
  embedded|real) ;;
  *) echo "compat: NOVA_COMPAT_GLANCE must be embedded or real, not $GLANCE" >&2; exit 2 ;;
esac

cleanup() {
  local rc=$?
  split_stop
  if [ -n "$SPLIT_PIDS" ] || { [ -n "$AIO_PID" ] && kill -0 "$AIO_PID" 2>/dev/null; }; then
    if [ -n "$AIO_PID" ]; then
      kill "$AIO_PID" 2>/dev/null || true
      for _ in $(seq 100); do kill -0 "$AIO_PID" 2>/dev/null || break; sleep 0.2; done
      kill -9 "$AIO_PID" 2>/dev/null || true
    fi
    # Guests outlive nova-aio in libvirt: remove this run's (named compat-*).
    for uri in qemu:///system $PEER_URI; do
      for dom in $(virsh -c "$uri" list --all --name 2>/dev/null | grep '^compat-'); do
        virsh -c "$uri" destroy "$dom" >/dev/null 2>&1 || true
        virsh -c "$uri" undefine --nvram "$dom" >/dev/null 2>&1 \
          || virsh -c "$uri" undefine "$dom" >/dev/null 2>&1 || true
      done
    done
  fi
  [ "$STARTED_PEER" = 1 ] && tools/start-libvirtd-peer.sh stop >/dev/null 2>&1 || true
  if [ "$REGISTERED_GLANCE" = 1 ] && [ "$STARTED_KEYSTONE" != 1 ]; then
    # The catalog's image entries back on the embedded endpoint, as tools/keystone.sh left them.
    NOVA_COMPAT_PASSWORD=${OS_PASSWORD:-compat-test-secret} python3 tools/keystone_setup.py \
      >/dev/null || true
  fi
  [ "$STARTED_KEYSTONE" = 1 ] && tools/keystone.sh stop || true
  if [ "${NOVA_COMPAT_KEEP:-0}" = 1 ] || [ "$rc" != 0 ]; then
    echo "compat: workspace kept in $WORK (nova-aio.log, tempest.log)"
  else
    rm -rf "$WORK"
  fi
  exit "$rc"
}
trap cleanup EXIT

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# 1. Keystone and tempest.
if ! curl -fsS -o /dev/null --max-time 5 http://127.0.0.1:5000/v3; then
  STARTED_KEYSTONE=1
fi
tools/keystone.sh start
TEMPEST_BIN=$(tools/tempest.sh)
# shellcheck disable=SC1091
. "$COMPAT_DIR/keystone.env"

# 2. nova-aio in keystone mode.
for port in 8774 9292 8776 6080 6082 6083; do
  port_free "$port" || { echo "compat: port $port is taken; stop what uses it" >&2; exit 1; }
done
mkdir -p "$WORK/state"
if [ "$GLANCE" = real ]; then
  REGISTERED_GLANCE=1
  NOVA_COMPAT_GLANCE_REGISTER=1 tools/glance.sh start
fi
if [ "$TOPOLOGY" = aio ]; then
  printf '[DEFAULT]\nstate_path = %s\n' "$WORK/state" > "$WORK/state.conf"
  if [ "$GLANCE" = real ]; then
    printf '[glance]\nendpoint_override = %s\n' "$GLANCE_URL" >> "$WORK/state.conf"
  fi
  if [ "${NOVA_COMPAT_NETWORKLESS:-0}" = 1 ]; then
    # The live migration tests run in this mode: compat-host2 gets a libvirtd of its
    # own (tools/start-libvirtd-peer.sh), which libvirt can live migrate to and from.
    PEER_URI=$(tools/start-libvirtd-peer.sh uri)
    virsh -c "$PEER_URI" version >/dev/null 2>&1 || STARTED_PEER=1
    tools/start-libvirtd-peer.sh start
    printf '[aio]\nextra_compute_host_uris = compat-host2:%s\n' "$PEER_URI" >> "$WORK/state.conf"
    printf '[libvirt]\nlive_migration_inbound_addr = 127.0.0.1\n' >> "$WORK/state.conf"
  fi
  # tempest runs here with [service_available] neutron = false: no network service, so
  # servers get no ports (tools/run-compat-neutron.sh is the pass with networking).
  printf '[aio]\nembedded_network = false\n' > "$WORK/network.conf"
  "${NOVA_RUN[@]}" "$VENV_BIN/nova-aio" --config-file etc/nova/aio-keystone.conf \
    --config-file "$COMPAT_DIR/keystone_authtoken.conf" --config-file "$WORK/state.conf" \
    --config-file "$WORK/network.conf" >"$WORK/nova-aio.log" 2>&1 &
  AIO_PID=$!
  for _ in $(seq 120); do
    grep -q 'nova-aio ready' "$WORK/nova-aio.log" && break
    kill -0 "$AIO_PID" 2>/dev/null || { tail -n 30 "$WORK/nova-aio.log" >&2; exit 1; }
    sleep 1
  done
  grep -q 'nova-aio ready' "$WORK/nova-aio.log" \
    || { echo "compat: nova-aio did not start" >&2; tail -n 30 "$WORK/nova-aio.log" >&2; exit 1; }
else
  # 2'. The split services (tools/compat_split.sh), a second compute host (tempest's
  # multi-node tests: min_compute_nodes = 2) on the same libvirtd.
  SPLIT_IMAGE_URL=http://127.0.0.1:9292
  [ "$GLANCE" = real ] && SPLIT_IMAGE_URL=$GLANCE_URL
  split_start
fi

# 3. Images, flavors, the multiattach volume type and tempest.conf.
# The certified image's CA and signing certificates go where the service's [key_manager]
# file backend reads them: certificates_dir defaults to $state_path/certificates.
NOVA_COMPAT_CERTS_DIR=$WORK/state/certificates "${NOVA_RUN[@]}" "$PY" tools/compat_resources.py \
  > "$WORK/resources.env"
# shellcheck disable=SC1091
. "$WORK/resources.env"
MAX_MICROVERSION=$("$PY" -c 'from nova.api import microversion as mv; print(mv.MAX_VERSION)')
# Its own workspace registry: tempest's default one (~/.tempest) is shared by every run.
(cd "$WORK" && "$TEMPEST_BIN/tempest" init --workspace-path "$WORK/workspace.yaml" \
  --name compat tempest >/dev/null)
mkdir -p "$WORK/locks"
sed -e "s|@WORKDIR@|$WORK|g" -e "s|@PASSWORD@|$OS_PASSWORD|g" \
    -e "s|@KEYSTONE_URL@|$OS_AUTH_URL|g" -e "s|@IMAGE_REF@|$IMAGE_REF|g" \
    -e "s|@IMAGE_REF_ALT@|$IMAGE_REF_ALT|g" -e "s|@FLAVOR_REF@|$FLAVOR_REF|g" \
    -e "s|@FLAVOR_REF_ALT@|$FLAVOR_REF_ALT|g" -e "s|@MAX_MICROVERSION@|$MAX_MICROVERSION|g" \
    -e "s|@CERTIFIED_IMAGE_REF@|$CERTIFIED_IMAGE_REF|g" \
    -e "s|@MULTIATTACH_VOLUME_TYPE@|$MULTIATTACH_VOLUME_TYPE|g" \
    -e "s|@CERTIFIED_IMAGE_TRUSTED_CERTS@|$CERTIFIED_IMAGE_TRUSTED_CERTS|g" \
    etc/tempest/tempest.conf.in > "$WORK/tempest/etc/tempest.conf"

# 4. The run.
set +e
# The workers find the configuration through these (not /etc/tempest).
export TEMPEST_CONFIG_DIR=$WORK/tempest/etc TEMPEST_CONFIG=tempest.conf
# NOVA_COMPAT_NETWORKLESS=1 (diagnostic, not the default): the classes that skip only
# because they ask for a default network run too (tools/compat_networkless).
if [ "${NOVA_COMPAT_NETWORKLESS:-0}" = 1 ]; then
  export PYTHONPATH=$REPO/tools/compat_networkless${PYTHONPATH:+:$PYTHONPATH}
fi
# The tests of etc/tempest/agent-image-tests.txt run in a pass of their own (4b).
cat "$REPO/etc/tempest/exclude-list.txt" "$REPO/etc/tempest/agent-image-tests.txt" \
  > "$WORK/exclude-list.txt"
(cd "$WORK/tempest" && "$TEMPEST_BIN/tempest" run --regex "$REGEX" \
  --config-file "$WORK/tempest/etc/tempest.conf" \
  --concurrency "$CONCURRENCY" --exclude-list "$WORK/exclude-list.txt") \
  > "$WORK/tempest-run.log" 2>&1
RUN_RC=$?
set -e
report() {
  grep -E '^\{[0-9]+\} .*(FAILED|\.\.\. ok|SKIPPED)' "$1" | grep -v '\.\.\. ok' | head -n 400 || true
}
count() { sed -n "s/^ - $2: \([0-9]*\)$/\1/p" "$1" | tail -n 1; }
report "$WORK/tempest-run.log"
tools/tempest-failures.sh "$WORK/tempest-run.log" "$WORK/nova-aio.log" "$WORK/tempest.log"
PASSED=$(count "$WORK/tempest-run.log" Passed)
FAILED=$(count "$WORK/tempest-run.log" Failed)
SKIPPED=$(count "$WORK/tempest-run.log" Skipped)
if [ -z "$PASSED" ]; then
  tail -n 40 "$WORK/tempest-run.log"
  echo "compat: tempest did not report totals (exit $RUN_RC)" >&2
  exit 1
fi

# 4b. The tests that need a guest agent (etc/tempest/agent-image-tests.txt), with
# image_ref on a kernel guest whose init answers the QEMU guest agent
# (tools/compat_resources.py: AGENT_IMAGE_REF) and the larger flavor: the boot-sector
# images of the main pass have none. Part of every full run; with NOVA_COMPAT_REGEX
# only when NOVA_COMPAT_AGENT=1.
if [ -z "${NOVA_COMPAT_REGEX:-}" ] || [ "${NOVA_COMPAT_AGENT:-0}" = 1 ]; then
  sed -e "s|^image_ref = .*|image_ref = $AGENT_IMAGE_REF|" \
      -e "s|^flavor_ref = .*|flavor_ref = $FLAVOR_REF_ALT|" \
      "$WORK/tempest/etc/tempest.conf" > "$WORK/tempest/etc/tempest-agent.conf"
  set +e
  (cd "$WORK/tempest" && TEMPEST_CONFIG=tempest-agent.conf "$TEMPEST_BIN/tempest" run \
    --include-list "$REPO/etc/tempest/agent-image-tests.txt" \
    --config-file "$WORK/tempest/etc/tempest-agent.conf" --concurrency 1) \
    > "$WORK/tempest-agent-run.log" 2>&1
  AGENT_RC=$?
  set -e
  report "$WORK/tempest-agent-run.log"
  tools/tempest-failures.sh "$WORK/tempest-agent-run.log" "$WORK/nova-aio.log" "$WORK/tempest.log"
  AGENT_PASSED=$(count "$WORK/tempest-agent-run.log" Passed)
  if [ -z "$AGENT_PASSED" ]; then
    tail -n 40 "$WORK/tempest-agent-run.log"
    echo "compat: tempest's guest agent pass did not report totals (exit $AGENT_RC)" >&2
    exit 1
  fi
  AGENT_FAILED=$(count "$WORK/tempest-agent-run.log" Failed)
  AGENT_SKIPPED=$(count "$WORK/tempest-agent-run.log" Skipped)
  echo "compat: guest agent pass: $AGENT_PASSED passed, ${AGENT_FAILED:-0} failed," \
       "${AGENT_SKIPPED:-0} skipped"
  PASSED=$((PASSED + AGENT_PASSED))
  FAILED=$((${FAILED:-0} + ${AGENT_FAILED:-0}))
  SKIPPED=$((${SKIPPED:-0} + ${AGENT_SKIPPED:-0}))
  [ "$AGENT_RC" = 0 ] || RUN_RC=$AGENT_RC
fi
echo "compat: ${PASSED} passed, ${FAILED:-0} failed, ${SKIPPED:-0} skipped"

# 5. This service's own clients and tempest plugin (tools/run-plugin.sh) against the same
# cloud, as the admin of keystone.env; NOVA_COMPAT_PLUGIN=0 skips them.
PLUGIN_RC=0
if [ "${NOVA_COMPAT_PLUGIN:-1}" = 1 ]; then
  PLUGIN_START=$SECONDS
  TEMPEST_CONF=$WORK/tempest/etc/tempest.conf NOVA_PYTHON=$PY \
    NOVAEXT_DIR=${NOVAEXT_DIR:-$COMPAT_DIR/novaext} tools/run-plugin.sh all || PLUGIN_RC=$?
  echo "compat: client and plugin tests exit $PLUGIN_RC ($((SECONDS - PLUGIN_START)) s)"
fi
[ "$RUN_RC" = 0 ] && [ "${FAILED:-0}" = 0 ] && [ "$PLUGIN_RC" = 0 ]

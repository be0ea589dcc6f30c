#!/usr/bin/env bash
# Install python-novaextclient and novaext-tempest-plugin into clean virtualenvs; run their tests.
#
#   tools/run-plugin.sh [client|plugin|all]      (default: all)
#
# Each distribution gets a virtualenv of its own under NOVAEXT_DIR, made by this script from
# nothing but the distribution and its pins; it is reused while those inputs (the sources,
# the pins, the interpreter, PIP_ARGS) are unchanged, and made anew otherwise or with
# NOVAEXT_FRESH=1.
# client: a virtualenv with only python-novaextclient + python-openstackclient (the tested
#   versions); its unit tests, then its functional tests (the real `openstack` CLI and
#   openstacksdk) against the cloud of the caller's OS_CLOUD or OS_AUTH_URL (OS_* variables)
#   when set, otherwise against a nova-aio this script starts (noauth2, libvirt
#   test:///default, free ports, a temporary state directory).
# plugin: a virtualenv with only tempest + the plugin; `tempest run` of the plugin's tests
#   against the cloud that TEMPEST_CONF (a tempest.conf with identity, images, flavors)
#   describes. The [novaext] group is added unless the file has one: white-box checks
#   through NOVAEXT_LIBVIRT_URI (default qemu:///system when virsh can read it) and the
#   kernel guest when tools/fetch-test-kernel.sh's cache has a kernel. Without TEMPEST_CONF
#   the plugin part fails, saying so.
#
# Environment: NOVAEXT_DIR (virtualenvs and workspaces; default /var/lib/nova-compat/novaext),
# NOVA_PYTHON (the service's virtualenv's python, whose nova-aio runs; default .venv/bin/python), TEMPEST_CONCURRENCY
# (default 2), NOVAEXT_REGEX (default: every plugin test), PIP_ARGS (extra pip arguments).
# Exits non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
WHAT=${1:-all}
DIR=${NOVAEXT_DIR:-/var/lib/nova-compat/novaext}
NOVA_PYTHON=${NOVA_PYTHON:-$REPO/.venv/bin/python}
# The client versions the hooks are tested with.
OSC_VERSION=10.5.0
SDK_VERSION=4.22.0
TEMPEST_VERSION=${NOVAEXT_TEMPEST_VERSION:-47.0.0}
mkdir -p "$DIR"

inputs_hash() {
  # What a virtualenv is made from: the interpreter, the pins, pip's arguments and the
  # sources of the distributions installed into it (not their build leftovers).
  {
    python3 --version
    echo "$OSC_VERSION $SDK_VERSION $TEMPEST_VERSION ${PIP_ARGS:-}" "$@"
    for src in "$@"; do
      src=${src%%\[*}
      [ -d "$src" ] || continue
      (cd "$src" && find . -type f ! -path '*/__pycache__/*' ! -name '*.pyc' \
         ! -path '*.egg-info/*' ! -path './build/*' ! -path './dist/*' -print0 \
         | LC_ALL=C sort -z | xargs -0 sha256sum)
    done
  } | sha256sum | cut -d' ' -f1
}

venv_for() {
  # venv_for VENV REQUIREMENT... : a virtualenv with exactly these requirements. Made anew
  # (so nothing from an earlier install can hide a missing dependency) unless the one
  # there was made from the same inputs; NOVAEXT_FRESH=1 always makes it anew.
  local venv=$1 stamp
  shift
  stamp=$(inputs_hash "$@")
  if [ "${NOVAEXT_FRESH:-0}" != 1 ] && [ -f "$venv/.novaext-inputs" ] \
      && [ "$(cat "$venv/.novaext-inputs")" = "$stamp" ]; then
    echo "   (reused: its inputs are unchanged)"
    return 0
  fi
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q ${PIP_ARGS:-} -U pip
  "$venv/bin/pip" install -q ${PIP_ARGS:-} "$@"
  echo "$stamp" > "$venv/.novaext-inputs"
}

AIO_PID=
stop_aio() {
  if [ -n "$AIO_PID" ] && kill -0 "$AIO_PID" 2>/dev/null; then
    kill "$AIO_PID"
    wait "$AIO_PID" 2>/dev/null || true
  fi
  AIO_PID=
}
trap stop_aio EXIT

start_aio() {
  local state=$1
  rm -rf "$state"
  mkdir -p "$state"
  cat > "$state.conf" <<EOF
[DEFAULT]
state_path = $state
metadata_listen_port = 0
[aio]
compute_port = 0
image_port = 0
volume_port = 0
network_port = 0
# No bridge or gateway address in the namespace the plugin's nova-aio runs in.
network_dataplane = false
[libvirt]
connection_uri = test:///default
EOF
  "$(dirname "$NOVA_PYTHON")/nova-aio" --config-file "$state.conf" > "$state.log" 2>&1 &
  AIO_PID=$!
  for _ in $(seq 120); do
    grep -q 'nova-aio ready' "$state.log" 2>/dev/null && return 0
    kill -0 "$AIO_PID" 2>/dev/null || break
    sleep 0.5
  done
  echo "run-plugin: nova-aio did not start; its log:" >&2
  tail -30 "$state.log" >&2
  return 1
}

run_client() {
  local venv=$DIR/client-venv
  echo "== python-novaextclient: virtualenv $venv"
  venv_for "$venv" "$REPO/clients/python-novaextclient[test]" \
    "python-openstackclient==$OSC_VERSION" "openstacksdk==$SDK_VERSION"
  # Run from outside the checkout so the installed distribution is what is tested.
  local tests
  tests=$("$venv/bin/python" -c 'import novaextclient, os; print(os.path.dirname(novaextclient.__file__))')/tests
  echo "== python-novaextclient: unit tests"
  (cd "$DIR" && "$venv/bin/python" -m pytest -q -p no:cacheprovider -p no:warnings "$tests/unit")
  echo "== python-novaextclient: functional tests"
  if [ -z "${OS_CLOUD:-}" ] && [ -z "${OS_AUTH_URL:-}" ]; then
    start_aio "$DIR/aio"
    export OS_CLIENT_CONFIG_FILE=$DIR/aio/clouds.yaml OS_CLOUD=nova-aio
  fi
  (cd "$DIR" && NOVAEXT_FUNCTIONAL=1 "$venv/bin/python" -m pytest -q -p no:cacheprovider -p no:warnings \
    "$tests/functional")
  stop_aio
}

novaext_section() {
  local uri=${NOVAEXT_LIBVIRT_URI-}
  if [ -z "${NOVAEXT_LIBVIRT_URI+set}" ] && command -v virsh >/dev/null \
      && virsh -r -c qemu:///system version >/dev/null 2>&1; then
    uri=qemu:///system
  fi
  local cache=${NOVA_TEST_KERNEL_CACHE:-/var/cache/nova-test}
  "$REPO/tools/fetch-test-kernel.sh" "$cache" >/dev/null 2>&1 || true
  echo "[novaext]"
  [ -n "$uri" ] && echo "libvirt_uri = $uri"
  if [ -s "$cache/vmlinuz" ] && [ -x "$cache/busybox" ]; then
    echo "kernel_path = $cache/vmlinuz"
    echo "busybox_path = $cache/busybox"
  fi
  echo "rescue_bus_devices = ${NOVAEXT_RESCUE_BUS_DEVICES:-usb:disk,virtio:disk,scsi:disk,ide:disk,ide:cdrom,sata:cdrom,fdc:floppy}"
  # TCG guests on a busy two-core machine: kernels take minutes, not seconds.
  echo "console_timeout = ${NOVAEXT_CONSOLE_TIMEOUT:-600}"
}

run_plugin() {
  if [ -z "${TEMPEST_CONF:-}" ] || [ ! -f "$TEMPEST_CONF" ]; then
    echo "run-plugin: set TEMPEST_CONF to a tempest.conf for the cloud (tools/tempest.sh" \
         "writes one)" >&2
    return 2
  fi
  local venv=$DIR/tempest-venv ws=$DIR/tempest-workspace
  echo "== novaext-tempest-plugin: virtualenv $venv (tempest $TEMPEST_VERSION)"
  venv_for "$venv" "tempest==$TEMPEST_VERSION" "$REPO/tempest-plugin"
  # Not "| grep -q": grep leaving early kills tempest with SIGPIPE (exit 141 under pipefail).
  "$venv/bin/tempest" list-plugins > "$DIR/list-plugins.txt"
  grep -q novaext "$DIR/list-plugins.txt" \
    || { echo "run-plugin: tempest does not list the novaext plugin" >&2; return 1; }
  rm -rf "$ws" "$DIR/workspace.yaml"
  # Its own workspace registry: in tempest's default one (~/.tempest, shared by every run)
  # the name is taken from the second run on, and init fails.
  local out
  if ! out=$("$venv/bin/tempest" init --workspace-path "$DIR/workspace.yaml" \
      --name novaext "$ws" 2>&1); then
    echo "run-plugin: tempest init failed: $out" >&2
    return 1
  fi
  cp "$TEMPEST_CONF" "$ws/etc/tempest.conf"
  if ! grep -q '^\[novaext\]' "$ws/etc/tempest.conf"; then
    { echo; novaext_section; } >> "$ws/etc/tempest.conf"
  fi
  echo "== novaext-tempest-plugin: tempest run"
  # This workspace's file with its [novaext] group, not one a caller's TEMPEST_CONFIG_DIR
  # and TEMPEST_CONFIG name (tempest's workers read those before --config-file).
  (cd "$ws" && TEMPEST_CONFIG_DIR=$ws/etc TEMPEST_CONFIG=tempest.conf \
    "$venv/bin/tempest" run --regex "${NOVAEXT_REGEX:-^novaext_tempest_plugin\.}" \
    --config-file "$ws/etc/tempest.conf" --concurrency "${TEMPEST_CONCURRENCY:-2}")
}

case $WHAT in
  client) run_client ;;
  plugin) run_plugin ;;
  all) run_client; run_plugin ;;
  *) echo "usage: $0 [client|plugin|all]" >&2; exit 2 ;;
esac

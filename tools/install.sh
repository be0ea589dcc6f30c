#!/usr/bin/env bash
# Install the system packages and a virtualenv with the service (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES="libvirt-daemon-system libvirt-clients libvirt-dev qemu-system-x86 qemu-utils
  pkg-config seabios ovmf libxml2-utils tini xorriso dosfstools mtools busybox-static cpio python3-venv
  python3-dev gcc git ca-certificates apache2-bin libapache2-mod-wsgi-py3
  iproute2 dnsmasq-base dnsmasq-utils nftables swtpm swtpm-tools"

missing=""
for pkg in $APT_PACKAGES; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $missing
fi

VENV=${NOVA_VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install -q -U pip wheel
"$VENV/bin/pip" install -q -r requirements.txt -r test-requirements.txt -r doc/requirements.txt
"$VENV/bin/pip" install -q --no-deps -e .
# oslo.service still depends on eventlet, but with its threading backend
# nothing imports it; when installed, futurist loads it (and dnspython) on
# import anyway, costing ~40 MB in every process. The service uses no eventlet.
"$VENV/bin/pip" uninstall -q -y eventlet 2>/dev/null || true

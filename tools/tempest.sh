#!/usr/bin/env bash
# Install upstream tempest into its own virtualenv (idempotent); print the venv's bin directory.
#   NOVA_COMPAT_DIR (default /var/lib/nova-compat) holds tempest-venv.
set -euo pipefail
COMPAT_DIR=${NOVA_COMPAT_DIR:-/var/lib/nova-compat}
VENV=$COMPAT_DIR/tempest-venv
TEMPEST_VERSION=${NOVA_COMPAT_TEMPEST_VERSION:-47.0.0}

if ! { [ -x "$VENV/bin/tempest" ] && "$VENV/bin/python" -c "import importlib.metadata as m, \
sys; sys.exit(m.version('tempest') != '$TEMPEST_VERSION')" 2>/dev/null; }; then
  echo "tempest: installing tempest $TEMPEST_VERSION into $VENV" >&2
  mkdir -p "$COMPAT_DIR"
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q -U pip wheel >&2
  "$VENV/bin/pip" install -q "tempest==$TEMPEST_VERSION" >&2
fi
echo "$VENV/bin"

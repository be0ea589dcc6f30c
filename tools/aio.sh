#!/usr/bin/env bash
# Install everything, start libvirtd, and run nova-aio in the foreground (Ctrl-C stops it).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install.sh
tools/start-libvirtd.sh
exec .venv/bin/nova-aio "$@"

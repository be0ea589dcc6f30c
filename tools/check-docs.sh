#!/usr/bin/env bash
# Build doc/, api-ref/ and releasenotes/ with warnings as errors, and check the API samples.
#
# Usage: tools/check-docs.sh
#   KEEP_DOCS=DIR   keep the HTML in DIR/{doc,api-ref,releasenotes} (default: a temp dir, removed)
#   SKIP_SAMPLES=1  do not compare api-ref samples with the running service
#   PYTHON=...      interpreter of the virtualenv (default .venv/bin/python)
# Exits non-zero if any build or check fails; every step runs either way.
set -uo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-.venv/bin/python}
if [ ! -x "$PYTHON" ]; then
    echo "check-docs: $PYTHON not found; run tools/install.sh and" \
         "'.venv/bin/pip install -r doc/requirements.txt'" >&2
    exit 2
fi
if ! "$PYTHON" -c 'import sphinx, os_api_ref, reno' 2>/dev/null; then
    echo "check-docs: the docs requirements are missing;" \
         "run '$PYTHON -m pip install -r doc/requirements.txt'" >&2
    exit 2
fi

if [ -n "${KEEP_DOCS:-}" ]; then
    OUT=$KEEP_DOCS
    mkdir -p "$OUT"
else
    OUT=$(mktemp -d -t nova-docs.XXXXXX)
    trap 'rm -rf "$OUT"' EXIT
fi

failed=()

build() {
    local name=$1 src=$2
    echo "== sphinx-build $src"
    # -E: never reuse a pickled environment; -n: warn on broken references.
    if "$PYTHON" -m sphinx -W --keep-going -E -n -q -b html \
            -d "$OUT/$name.doctrees" "$src" "$OUT/$name"; then
        echo "   ok: $OUT/$name/index.html"
    else
        failed+=("$name")
    fi
}

build doc doc/source
build api-ref api-ref/source
build releasenotes releasenotes/source

if [ -z "${SKIP_SAMPLES:-}" ]; then
    echo "== api-ref samples against the running service"
    if ! "$PYTHON" api-ref/source/samples/generate.py --check; then
        failed+=("api-ref samples")
    fi
fi

if [ ${#failed[@]} -gt 0 ]; then
    echo "check-docs: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "check-docs: all documentation builds cleanly"

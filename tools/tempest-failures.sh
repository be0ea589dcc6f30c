#!/bin/bash
# Prints what a tempest run log holds for each failed test, and the service log's errors.
# Usage: tools/tempest-failures.sh TEMPEST_RUN_LOG [SERVICE_LOG [TEMPEST_LOG]]
# Each failed test's captured output and traceback (at most 150 lines each, 5 tests), then
# the last 40 ERROR or Traceback lines of the service log and the last 20 warnings and
# errors of tempest's own log (an SSH wait says there why it failed): enough to tell a
# failure in CI from its output alone.
set -u
LOG=$1
SERVICE_LOG=${2:-}
TEMPEST_LOG=${3:-}
grep -qE '^\{[0-9]+\} .*FAILED$' "$LOG" 2>/dev/null || exit 0
awk '
  /^\{[0-9]+\} / { if (shown) { shown = 0 } }
  /^\{[0-9]+\} .*FAILED$/ { if (failed < 5) { shown = 1; lines = 0; failed++ } }
  shown && lines < 150 { print "  | " $0; lines++ }
' "$LOG"
if [ -n "$SERVICE_LOG" ] && [ -f "$SERVICE_LOG" ]; then
  echo "  | last errors of $(basename "$SERVICE_LOG"):"
  grep -E ' ERROR |Traceback' "$SERVICE_LOG" | tail -n 40 | sed 's/^/  | /'
fi
if [ -n "$TEMPEST_LOG" ] && [ -f "$TEMPEST_LOG" ]; then
  echo "  | last warnings of $(basename "$TEMPEST_LOG"):"
  grep -E ' (WARNING|ERROR) ' "$TEMPEST_LOG" | grep -v ' oslo_config\.cfg ' | tail -n 20 \
    | cut -c1-400 | sed 's/^/  | /'
fi

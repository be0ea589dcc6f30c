#!/bin/bash
# Prints an include list (one regex per line) of the tests a tempest run log reports failed.
# Usage: tools/tempest-failed-ids.sh TEMPEST_RUN_LOG
# A failed test gives its own id; a failed setUpClass or tearDownClass gives its class.
set -u
sed -n -E \
  -e 's/^\{[0-9]+\} (setUpClass|tearDownClass) \(([^)]+)\).* FAILED$/\2/p' \
  -e 's/^\{[0-9]+\} ([A-Za-z0-9_.]+)( \[[^]]*\])* \.\.\. FAILED$/\1/p' "$1" \
  | sort -u | sed -e 's/\./\\./g' -e 's/^/^/' -e 's/$/(\\[|\\.|$)/'

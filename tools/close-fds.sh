# Sourced by the scripts that start daemons (tools/keystone.sh, tools/glance.sh).
# close_inherited_fds closes every descriptor above 2 of the calling (sub)shell. Call it
# in the subshell that starts a daemon: a daemon keeps what it inherits, and a caller's
# lock (e.g. `flock /tmp/compat.lock tools/run-tests.sh`) would then outlive the caller
# and block everyone waiting for it for as long as the daemon runs.
close_inherited_fds() {
  local path fd
  for path in /proc/"$BASHPID"/fd/*; do
    fd=${path##*/}
    if [ "$fd" -gt 2 ] 2>/dev/null; then
      eval "exec $fd>&-" 2>/dev/null || true
    fi
  done
}

"""tools/close-fds.sh: a daemon started by the tools does not keep its caller's lock."""

import pathlib
import subprocess

TOOLS = pathlib.Path(__file__).resolve().parents[3] / 'tools'

# Holds a flock on fd 9 (as `flock FILE command` passes it on), starts a background
# child the way tools/keystone.sh starts gunicorn, and exits.
HOLDER = '''
set -e
. "{tools}/close-fds.sh"
exec 9>"{lock}"
flock 9
( cd / && {close} exec sleep 30 ) >/dev/null 2>&1 &
echo $!
'''


def _lock_free_after_holder_exits(tmp_path, close):
    lock = tmp_path / 'lock'
    out = subprocess.run(['bash', '-c', HOLDER.format(
        tools=TOOLS, lock=lock, close='close_inherited_fds &&' if close else '')],
        capture_output=True, text=True, check=True, timeout=30)
    child = int(out.stdout.split()[-1])
    # The child closes its descriptors just after it starts: give it up to 10 s to do so
    # (a busy machine may not have run it yet); without the helper it never does.
    wait = ['-w', '10'] if close else ['-n']
    try:
        return subprocess.run(['flock', *wait, str(lock), 'true'], timeout=30).returncode == 0
    finally:
        subprocess.run(['kill', str(child)], check=False)


def test_the_child_keeps_the_lock_without_the_helper(tmp_path):
    assert not _lock_free_after_holder_exits(tmp_path, close=False)


def test_the_child_drops_inherited_descriptors_with_the_helper(tmp_path):
    assert _lock_free_after_holder_exits(tmp_path, close=True)

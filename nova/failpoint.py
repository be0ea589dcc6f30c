"""Test-only crash hook: NOVA_FAILPOINT=<name> makes the process SIGKILL itself there."""

import logging
import os
import signal
import sys

LOG = logging.getLogger(__name__)

# Read once, when the process starts: a crash test arms one point per run.
_ARMED = os.environ.get('NOVA_FAILPOINT') or None

# Every point the code hits; a test arming another name would wait forever.
POINTS = (
    'schedule.before_claim',    # row BUILD/scheduling without a host (conductor)
    'schedule.after_claim',     # host usage claimed, the row does not point at the host
    'build.after_spawn',        # guest defined and running, row still BUILD/spawning
    'delete.after_destroy',     # guest gone, row still deleting, claim still held
    'rescue.before_driver',     # row rescuing, guest untouched
    'rescue.after_driver',      # guest booted from the rescue media, row still rescuing
    'unrescue.after_driver',    # guest back on its own disks, row still RESCUE/unrescuing
    'attach.api_reserved',      # volume reserved for the server, no mapping (API)
    'attach.after_connect',     # attachment connected, guest without the disk
    'attach.after_driver',      # guest has the disk, attachment not completed
    'detach.after_driver',      # guest without the disk, attachment and BDM still there
    'snapshot.guest_paused',    # guest paused for the copy, image queued (libvirt driver)
    'snapshot.after_copy',      # image queued, row image_snapshot, nothing uploaded
    'migrate.after_power_off',  # source: guest undefined, files in <uuid>_resize, not sent
    'migrate.after_take',       # destination: files copied, row on this host, no guest
)


def hit(name):
    """Die like ``kill -9`` when ``name`` is the armed point; otherwise nothing."""
    if _ARMED is not None and name == _ARMED:
        LOG.critical('failpoint %s reached: killing this process', name)
        sys.stderr.write('NOVA_FAILPOINT %s reached\n' % name)
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)

"""Crash reconciliation decisions, and the test-only failpoint hook."""

import datetime
import os
import subprocess
import sys

import pytest

from nova.compute import reconcile_decide as d

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))


@pytest.mark.parametrize('vm_state, task_state, plan', [
    ('active', 'deleting', d.FINISH_DELETE),
    ('error', 'deleting', d.FINISH_DELETE),
    ('building', 'scheduling', d.FAIL_BUILD),
    ('building', 'spawning', d.FAIL_BUILD),
    ('building', 'block_device_mapping', d.FAIL_BUILD),
    ('active', 'rescuing', d.ROLLBACK_RESCUE),
    ('stopped', 'rescuing', d.ROLLBACK_RESCUE),
    ('rescued', 'unrescuing', d.FINISH_UNRESCUE),
    ('active', 'image_snapshot', d.END_SNAPSHOT),
    ('stopped', 'image_uploading', d.END_SNAPSHOT),
    ('active', 'image_backup', d.END_SNAPSHOT),
    ('active', 'powering-off', d.CLEAR_TASK),
    ('stopped', 'powering-on', d.CLEAR_TASK),
    ('active', 'rebooting_hard', d.CLEAR_TASK),
    ('active', 'rebuilding', d.FAIL_REBUILD),
    ('stopped', 'rebuild_spawning', d.FAIL_REBUILD),
    ('active', None, None),
    ('rescued', None, None),
    ('error', None, None),
])
def test_instance_plan(vm_state, task_state, plan):
    assert d.instance_plan(vm_state, task_state) == plan


@pytest.mark.parametrize('status, in_guest, detaching, plan', [
    ('attached', True, False, d.VOLUME_OK),
    ('attached', True, True, d.VOLUME_OK),          # the detach never reached the guest
    ('attached', False, True, d.FINISH_DETACH),     # crashed after the guest let go
    ('attached', False, False, d.REATTACH),         # the guest lost it otherwise
    ('attaching', True, False, d.COMPLETE_ATTACH),  # crashed after the guest got it
    ('reserved', True, False, d.COMPLETE_ATTACH),
    ('attaching', False, False, d.ROLLBACK_ATTACH),  # crashed before the guest got it
    ('reserved', False, False, d.ROLLBACK_ATTACH),
    (None, True, False, d.DROP_BDM),                 # the volume service forgot it
    (None, False, True, d.DROP_BDM),
])
def test_volume_plan(status, in_guest, detaching, plan):
    assert d.volume_plan(status, in_guest, detaching) == plan


@pytest.mark.parametrize('status, plan', [
    ('attached', d.VOLUME_OK), ('reserved', d.ROLLBACK_ATTACH),
    ('attaching', d.ROLLBACK_ATTACH), (None, d.VOLUME_OK)])
def test_volume_plan_without_a_domain_only_rolls_back_attaches(status, plan):
    assert d.volume_plan(status, False, False, guest_known=False) == plan


def test_stale():
    now = datetime.datetime(2026, 1, 1, 12, 0, 0)
    assert d.stale(None, now, 600)
    assert d.stale(now - datetime.timedelta(seconds=600), now, 600)
    assert not d.stale(now - datetime.timedelta(seconds=599), now, 600)
    assert d.stale(now, now, 0)


def _run(code, failpoint):
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop('NOVA_FAILPOINT', None)
    if failpoint:
        env['NOVA_FAILPOINT'] = failpoint
    return subprocess.run([sys.executable, '-c', code], env=env, capture_output=True,
                          text=True, timeout=60)


def test_failpoint_kills_the_process_like_kill_9_only_at_its_name():
    code = ('from nova import failpoint; failpoint.hit("other.point"); print("alive"); '
            'failpoint.hit("build.after_spawn"); print("survived")')
    armed = _run(code, 'build.after_spawn')
    assert armed.returncode == -9
    assert armed.stdout.strip() == 'alive'
    assert 'NOVA_FAILPOINT build.after_spawn reached' in armed.stderr
    unarmed = _run(code, None)
    assert unarmed.returncode == 0 and unarmed.stdout.split() == ['alive', 'survived']


def test_every_failpoint_is_hit_somewhere():
    from nova import failpoint
    text = ''
    for base, _dirs, files in os.walk(os.path.join(ROOT, 'nova')):
        if 'tests' in base:
            continue
        for name in files:
            if name.endswith('.py') and name != 'failpoint.py':
                with open(os.path.join(base, name)) as handle:
                    text += handle.read()
    for point in failpoint.POINTS:
        assert "failpoint.hit('%s')" % point in text, point

"""vTPM state links: the swtpm user must reach the instance directory, which it then owns."""

import os
import pwd
import shutil
import tempfile

import pytest

from nova import exception
from nova.virt.libvirt import vtpm

USER = 'tss' if 'tss' in {p.pw_name for p in pwd.getpwall()} else 'nobody'


@pytest.fixture
def searchable():
    """A directory every user can search (pytest's own is private to root)."""
    path = tempfile.mkdtemp(prefix='nova-vtpm-', dir='/var/tmp')
    os.chmod(path, 0o711)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_a_private_ancestor_is_named(tmp_path):
    private = tmp_path / 'private'
    (private / 'instances').mkdir(parents=True)
    os.chmod(tmp_path, 0o755)
    os.chmod(private, 0o700)
    reason = vtpm.unreachable(str(private / 'instances' / 'uuid'), USER)
    assert reason and str(private) in reason and USER in reason


def test_a_searchable_path_is_reachable(searchable):
    assert vtpm.unreachable(os.path.join(searchable, 'instances', 'uuid'), USER) is None


def test_an_unknown_user_is_named(tmp_path):
    assert 'no-such-swtpm-user' in vtpm.unreachable(str(tmp_path), 'no-such-swtpm-user')


def test_root_reaches_everything(tmp_path):
    os.chmod(tmp_path, 0o700)
    assert vtpm.unreachable(str(tmp_path), 'root') is None


def test_link_state_refuses_before_making_anything(tmp_path):
    os.chmod(tmp_path, 0o700)
    instance_dir = tmp_path / 'inst'
    swtpm_dir = tmp_path / 'swtpm'
    with pytest.raises(exception.HypervisorError) as err:
        vtpm.link_state(str(instance_dir), 'uuid-1', swtpm_dir=str(swtpm_dir), user=USER)
    assert 'not searchable' in str(err.value)
    assert not instance_dir.exists() and not swtpm_dir.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason='chown needs root')
def test_link_state_gives_the_state_to_the_swtpm_user(searchable):
    instance_dir = os.path.join(searchable, 'inst')
    swtpm_dir = os.path.join(searchable, 'swtpm')
    target = vtpm.link_state(instance_dir, 'uuid-1', swtpm_dir=swtpm_dir, user=USER)
    assert os.readlink(os.path.join(swtpm_dir, 'uuid-1')) == target
    assert os.stat(target).st_uid == pwd.getpwnam(USER).pw_uid
    assert oct(os.stat(target).st_mode & 0o777) == oct(0o700)

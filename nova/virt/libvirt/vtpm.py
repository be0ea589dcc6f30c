"""vTPM state in the instance directory: libvirt's swtpm state path made a link to it."""

# libvirt 9.0 keeps an emulated TPM's state in /var/lib/libvirt/swtpm/<uuid>
# and has no element to put it elsewhere.  Making that path a link into
# the instance directory keeps the state with the guest's disks: it moves
# with the directory on resize and cold migration, survives rescue (the
# same domain is redefined) and goes with the directory on delete.  The
# domain is always undefined with VIR_DOMAIN_UNDEFINE_KEEP_TPM (guest.py):
# otherwise libvirt would empty the state through the link.

import grp
import os
import pwd
import shutil
import stat

from nova import exception

SWTPM_DIR = '/var/lib/libvirt/swtpm'
STATE_DIR = 'tpm'


def state_dir(instance_dir):
    return os.path.join(instance_dir, STATE_DIR)


def unreachable(path, user):
    """Why swtpm, running as ``user`` (libvirt's qemu.conf ``swtpm_user``),
    cannot reach the directory ``path``, or None: every existing ancestor
    must be searchable by it."""
    try:
        account = pwd.getpwnam(user)
    except KeyError:
        return 'the swtpm user %r does not exist on this host' % user
    if account.pw_uid == 0:
        return None
    groups = {account.pw_gid} | {g.gr_gid for g in grp.getgrall() if user in g.gr_mem}
    probe = os.path.abspath(path)
    while True:
        if os.path.isdir(probe) and not _searchable(os.stat(probe), account.pw_uid, groups):
            return ('%s is not searchable by the swtpm user %s, so a vTPM state kept '
                    'under %s could not be opened (make it searchable, e.g. chmod o+x)'
                    % (probe, user, path))
        parent = os.path.dirname(probe)
        if parent == probe:
            return None
        probe = parent


def _searchable(st, uid, gids):
    if st.st_uid == uid:
        return bool(st.st_mode & stat.S_IXUSR)
    if st.st_gid in gids:
        return bool(st.st_mode & stat.S_IXGRP)
    return bool(st.st_mode & stat.S_IXOTH)


def link_state(instance_dir, uuid, swtpm_dir=SWTPM_DIR, user=None, group=None):
    """Point libvirt's state path of ``uuid`` at the instance directory's
    (made if missing, owned by the swtpm ``user``/``group``); state libvirt
    kept itself moves in first. HypervisorError, before the guest starts,
    when swtpm could not reach it."""
    target = state_dir(instance_dir)
    if user:
        reason = unreachable(instance_dir, user)
        if reason:
            raise exception.HypervisorError(reason=reason)
    os.makedirs(target, mode=0o700, exist_ok=True)
    if user:
        os.chown(target, pwd.getpwnam(user).pw_uid,
                 grp.getgrnam(group).gr_gid if group else -1)
    os.makedirs(swtpm_dir, mode=0o711, exist_ok=True)
    link = os.path.join(swtpm_dir, uuid)
    if os.path.islink(link):
        if os.readlink(link) == target:
            return target
        os.unlink(link)
    elif os.path.isdir(link):
        for name in os.listdir(link):
            shutil.move(os.path.join(link, name), os.path.join(target, name))
        os.rmdir(link)
    os.symlink(target, link)
    return target


def unlink_state(uuid, swtpm_dir=SWTPM_DIR):
    """Drop the link (the state stays in the instance directory)."""
    link = os.path.join(swtpm_dir, uuid)
    if os.path.islink(link):
        os.unlink(link)

"""vTPM state in the instance directory: libvirt's swtpm state path made a link to it."""

# libvirt 9.0 keeps an emulated TPM's state in /var/lib/libvirt/swtpm/<uuid>
# and has no element to put it elsewhere.  Making that path a link into
# the instance directory keeps the state with the guest's disks: it moves
# with the directory on resize and cold migration, survives rescue (the
# same domain is redefined) and goes with the directory on delete.  The
# domain is always undefined with VIR_DOMAIN_UNDEFINE_KEEP_TPM (guest.py):
# otherwise libvirt would empty the state through the link.

import os
import shutil

SWTPM_DIR = '/var/lib/libvirt/swtpm'
STATE_DIR = 'tpm'


def state_dir(instance_dir):
    return os.path.join(instance_dir, STATE_DIR)


def link_state(instance_dir, uuid, swtpm_dir=SWTPM_DIR):
    """Point libvirt's state path of ``uuid`` at the instance directory's
    (made if missing); state libvirt kept itself moves in first."""
    target = state_dir(instance_dir)
    os.makedirs(target, exist_ok=True)
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

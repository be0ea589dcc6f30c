"""Make the images, flavors and volume types tempest needs; print them as KEY=VALUE.

Run by tools/run-compat.sh with the repository's virtualenv (it reuses the tiny bootable
image builder of the functional tests). Talks to the service through the Keystone catalog
as the admin of keystone.env (OS_* variables).
"""

import os
import sys
import tempfile

from keystoneauth1 import session as ksa_session
from keystoneauth1.identity import v3

from nova.tests.fixtures import agentguest, bootimg, kernelguest, signing, sshguest

# Several lines: tempest's console-output test reads more than one.
MESSAGES = {
    'IMAGE_REF': 'compat guest\r\nline 2\r\nline 3\r\nline 4\r\n',
    'IMAGE_REF_ALT': 'compat guest alt\r\nline 2\r\nline 3\r\nline 4\r\n',
}
# (id, name, MiB of RAM, GiB of disk): small, so concurrent QEMU guests stay cheap.
FLAVORS = {
    'FLAVOR_REF': ('c1', 'compat.tiny', 64, 1),
    'FLAVOR_REF_ALT': ('c2', 'compat.small', 96, 1),
}


def admin_session():
    auth = v3.Password(auth_url=os.environ['OS_AUTH_URL'],
                       username=os.environ['OS_USERNAME'],
                       password=os.environ['OS_PASSWORD'],
                       project_name=os.environ['OS_PROJECT_NAME'],
                       user_domain_name='Default', project_domain_name='Default')
    return ksa_session.Session(auth=auth, timeout=120)


IMAGE_EP = {'service_type': 'image', 'interface': 'public'}


def upload(sess, name, path, disk_format='raw', container_format='bare', **props):
    """The id of the active public image ``name``, uploaded from ``path`` unless there."""
    found = sess.get('/v2/images?name=' + name, endpoint_filter=IMAGE_EP).json()['images']
    if found and found[0]['status'] == 'active':
        return found[0]['id']
    image = sess.post('/v2/images', endpoint_filter=IMAGE_EP, json=dict(
        name=name, disk_format=disk_format, container_format=container_format,
        visibility='public', **props)).json()
    with open(path, 'rb') as handle:
        sess.put('/v2/images/%s/file' % image['id'], endpoint_filter=IMAGE_EP,
                 data=handle.read(), headers={'Content-Type': 'application/octet-stream'})
    return image['id']


def ensure_image(sess, name, message):
    with tempfile.TemporaryDirectory() as tmp:
        path = bootimg.write_boot_image(os.path.join(tmp, 'disk.img'), message,
                                           ack_unplug=True)
        return upload(sess, name, path)


def agent_image(sess):
    """A kernel+initrd guest with hw_qemu_guest_agent=yes whose init answers the agent's
    password call (nova/tests/fixtures/agentguest.py), for changePassword."""
    kernel, busybox = kernelguest.fetch()
    with tempfile.TemporaryDirectory() as tmp:
        initrd = agentguest.write_initrd(os.path.join(tmp, 'initrd.gz'), busybox)
        root = os.path.join(tmp, 'root.img')
        with open(root, 'wb') as handle:
            handle.truncate(1024 * 1024)
        kernel_id = upload(sess, 'compat-agent-kernel', kernel, 'aki', 'aki')
        ramdisk_id = upload(sess, 'compat-agent-initrd', initrd, 'ari', 'ari')
        return upload(sess, 'compat-agent-guest', root, kernel_id=kernel_id,
                      ramdisk_id=ramdisk_id, hw_qemu_guest_agent='yes',
                      os_command_line='console=ttyS0 quiet')


def ssh_image(sess):
    """The SSH guest (nova/tests/fixtures/sshguest.py: DHCP, metadata key, dropbear) for
    the networking pass, whose tests log in over floating IPs."""
    return upload(sess, 'compat-ssh-guest', sshguest.cached_disk_image())


def certified_image(sess, certs_dir):
    """(image id, trusted cert ids): a bootable image signed by a fresh CA's signer.

    The CA and signing certificates land in ``certs_dir`` as <id>.pem, the
    service's [key_manager] file backend directory; the image carries the four
    img_signature* properties for its bytes. Made anew each run (an older one's
    certificates are gone), replacing any left by an earlier run.
    """
    name = 'compat-certified'
    for old in sess.get('/v2/images?name=' + name, endpoint_filter=IMAGE_EP).json()['images']:
        sess.delete('/v2/images/' + old['id'], endpoint_filter=IMAGE_EP, raise_exc=False)
    authority = signing.Authority(certs_dir, name='compat')
    with tempfile.TemporaryDirectory() as tmp:
        path = bootimg.write_boot_image(os.path.join(tmp, 'disk.img'), MESSAGES['IMAGE_REF'],
                                        ack_unplug=True)
        with open(path, 'rb') as handle:
            data = handle.read()
    image = sess.post('/v2/images', endpoint_filter=IMAGE_EP, json=dict(
        name=name, disk_format='raw', container_format='bare', visibility='public')).json()
    sess.put('/v2/images/%s/file' % image['id'], endpoint_filter=IMAGE_EP, data=data,
             headers={'Content-Type': 'application/octet-stream'})
    # The signature properties after the upload: a real Glance checks them on upload
    # against its own key manager (Barbican), which this stage does not run.
    sess.patch('/v2/images/%s' % image['id'], endpoint_filter=IMAGE_EP,
               json=[{'op': 'add', 'path': '/' + key, 'value': value}
                     for key, value in sorted(authority.properties(data).items())],
               headers={'Content-Type': 'application/openstack-images-v2.1-json-patch'})
    return image['id'], [authority.ca_id, authority.cert_id]


def ensure_flavor(sess, flavor_id, name, ram, disk):
    compute = {'service_type': 'compute', 'interface': 'public'}
    resp = sess.get('/flavors/' + flavor_id, endpoint_filter=compute, raise_exc=False)
    if resp.status_code == 404:
        sess.post('/flavors', endpoint_filter=compute, json={'flavor': {
            'id': flavor_id, 'name': name, 'ram': ram, 'vcpus': 1, 'disk': disk}})
    return flavor_id


def ensure_volume_type(sess, name, extra_specs):
    """A public volume type, made as devstack makes tempest's (admin types API)."""
    volume = {'service_type': 'block-storage', 'interface': 'public'}
    types = sess.get('/types', endpoint_filter=volume).json()['volume_types']
    if not any(t['name'] == name for t in types):
        sess.post('/types', endpoint_filter=volume, json={'volume_type': {
            'name': name, 'extra_specs': extra_specs}})
    return name


def main():
    sess = admin_session()
    # tempest's [volume] volume_type_multiattach names it.
    print('MULTIATTACH_VOLUME_TYPE=%s' % ensure_volume_type(
        sess, 'multiattach', {'multiattach': '<is> True'}))
    for key, message in MESSAGES.items():
        print('%s=%s' % (key, ensure_image(sess, 'compat-' + key.lower(), message)))
    print('AGENT_IMAGE_REF=%s' % agent_image(sess))
    for key, (flavor_id, name, ram, disk) in FLAVORS.items():
        print('%s=%s' % (key, ensure_flavor(sess, flavor_id, name, ram, disk)))
    if os.environ.get('NOVA_COMPAT_SSH_IMAGE') == '1':
        print('SSH_IMAGE_REF=%s' % ssh_image(sess))
        # The file itself, for the scenarios that upload an image of their own.
        print('SSH_IMAGE_FILE=%s' % sshguest.cached_disk_image())
        print('SSH_FLAVOR_REF=%s' % ensure_flavor(sess, 'c3', 'compat.ssh', 256, 1))
        # A second one for the resize tests (a resize must change the flavor).
        print('SSH_FLAVOR_REF_ALT=%s' % ensure_flavor(sess, 'c4', 'compat.ssh.alt', 320, 1))
    if os.environ.get('NOVA_COMPAT_CERTS_DIR'):
        image_id, certs = certified_image(sess, os.environ['NOVA_COMPAT_CERTS_DIR'])
        print('CERTIFIED_IMAGE_REF=%s' % image_id)
        print('CERTIFIED_IMAGE_TRUSTED_CERTS=%s' % ','.join(certs))


if __name__ == '__main__':
    sys.exit(main())

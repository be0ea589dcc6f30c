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

from nova.tests.fixtures import bootimg, signing

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


def ensure_image(sess, name, message):
    image_ep = {'service_type': 'image', 'interface': 'public'}
    found = sess.get('/v2/images?name=' + name, endpoint_filter=image_ep).json()['images']
    if found and found[0]['status'] == 'active':
        return found[0]['id']
    image = sess.post('/v2/images', endpoint_filter=image_ep, json={
        'name': name, 'disk_format': 'raw', 'container_format': 'bare',
        'visibility': 'public'}).json()
    with tempfile.TemporaryDirectory() as tmp:
        path = bootimg.write_boot_image(os.path.join(tmp, 'disk.img'), message,
                                           ack_unplug=True)
        with open(path, 'rb') as handle:
            sess.put('/v2/images/%s/file' % image['id'], endpoint_filter=image_ep,
                     data=handle.read(),
                     headers={'Content-Type': 'application/octet-stream'})
    return image['id']


def certified_image(sess, certs_dir):
    """(image id, trusted cert ids): a bootable image signed by a fresh CA's signer.

    The CA and signing certificates land in ``certs_dir`` as <id>.pem, the
    service's [key_manager] file backend directory; the image carries the four
    img_signature* properties for its bytes. Made anew each run (an older one's
    certificates are gone), replacing any left by an earlier run.
    """
    image_ep = {'service_type': 'image', 'interface': 'public'}
    name = 'compat-certified'
    for old in sess.get('/v2/images?name=' + name, endpoint_filter=image_ep).json()['images']:
        sess.delete('/v2/images/' + old['id'], endpoint_filter=image_ep, raise_exc=False)
    authority = signing.Authority(certs_dir, name='compat')
    with tempfile.TemporaryDirectory() as tmp:
        path = bootimg.write_boot_image(os.path.join(tmp, 'disk.img'), MESSAGES['IMAGE_REF'],
                                        ack_unplug=True)
        with open(path, 'rb') as handle:
            data = handle.read()
    image = sess.post('/v2/images', endpoint_filter=image_ep, json=dict(
        name=name, disk_format='raw', container_format='bare', visibility='public',
        **authority.properties(data))).json()
    sess.put('/v2/images/%s/file' % image['id'], endpoint_filter=image_ep, data=data,
             headers={'Content-Type': 'application/octet-stream'})
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
    for key, (flavor_id, name, ram, disk) in FLAVORS.items():
        print('%s=%s' % (key, ensure_flavor(sess, flavor_id, name, ram, disk)))
    if os.environ.get('NOVA_COMPAT_CERTS_DIR'):
        image_id, certs = certified_image(sess, os.environ['NOVA_COMPAT_CERTS_DIR'])
        print('CERTIFIED_IMAGE_REF=%s' % image_id)
        print('CERTIFIED_IMAGE_TRUSTED_CERTS=%s' % ','.join(certs))


if __name__ == '__main__':
    sys.exit(main())

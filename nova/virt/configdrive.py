"""Config drive: the OpenStack metadata tree, written as an ISO 9660 or vfat image."""

import base64
import binascii
import json
import os
import shutil
import subprocess
import tempfile

from nova import exception

LABEL = 'config-2'
# Metadata versions written besides 'latest'; cloud-init takes the newest
# it knows, so one dated copy keeps older readers working.
VERSIONS = ('2018-08-27', 'latest')
FORMATS = ('iso9660', 'vfat')
# upstream's vfat config drive size
VFAT_SIZE = 64 * 1024 * 1024

# ISO 9660 writers, in order of preference; all take mkisofs arguments.
_ISO_TOOLS = (('xorriso', '-as', 'mkisofs'), ('genisoimage',), ('mkisofs',))


def required_by(instance, force=False):
    """True when the instance asked for a config drive (or config forces
    one).  ``instance.config_drive`` is 'True' or '' like upstream."""
    value = getattr(instance, 'config_drive', None)
    if isinstance(value, str):
        value = value.strip().lower() in ('true', '1', 'yes', 'on')
    return bool(value) or force


def decode_user_data(user_data):
    """Base64 text (as the API stores it) -> bytes; None stays None."""
    if user_data is None or user_data == '':
        return None
    try:
        return base64.b64decode(user_data, validate=True)
    except (binascii.Error, ValueError):
        raise exception.Invalid(reason='instance user_data is not valid '
                                       'base64')


def meta_data(instance, admin_pass=None, files=()):
    """The meta_data.json document (upstream's keys we can fill)."""
    data = {
        'uuid': instance.uuid,
        'name': getattr(instance, 'display_name', None) or instance.name,
        'hostname': getattr(instance, 'hostname', None),
        'launch_index': getattr(instance, 'launch_index', 0) or 0,
        'availability_zone': getattr(instance, 'availability_zone', None),
        'project_id': getattr(instance, 'project_id', None),
        'meta': dict(getattr(instance, 'metadata', None) or {}),
        'public_keys': {},
        'keys': [],
        'devices': [],
    }
    key = _key_pair(instance)
    if key:
        # Upstream's shape: public_keys {name: key}; keys [{name, type, data}].
        data['public_keys'] = {key['name']: key['public_key']}
        data['keys'] = [{'name': key['name'], 'type': key.get('type', 'ssh'),
                         'data': key['public_key']}]
    if admin_pass:
        data['admin_pass'] = admin_pass
    if files:
        data['files'] = [{'path': path, 'content_path': content_path}
                         for path, content_path in files]
    return data


def _key_pair(instance):
    raw = getattr(instance, 'key_data', None) if _is_set(instance, 'key_data') else None
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        # A bare public key (as upstream stores key_data) under the key name.
        return {'name': getattr(instance, 'key_name', None) or 'key', 'type': 'ssh',
                'public_key': raw}


def _is_set(instance, name):
    check = getattr(instance, 'obj_attr_is_set', None)
    return check(name) if check is not None else hasattr(instance, name)


def metadata_files(instance, injected_files=(), admin_pass=None,
                   network_data=None):
    """{relative path: bytes} of everything on the drive (pure)."""
    out = {}
    content = []
    for index, (path, contents) in enumerate(injected_files or ()):
        content_path = '/content/%04d' % index
        content.append((path, content_path))
        if isinstance(contents, str):
            contents = contents.encode('utf-8')
        out['openstack' + content_path] = contents
    meta = json.dumps(meta_data(instance, admin_pass, content),
                      sort_keys=True).encode()
    network = json.dumps(network_data or {'links': [], 'networks': [],
                                          'services': []},
                         sort_keys=True).encode()
    user_data = decode_user_data(getattr(instance, 'user_data', None))
    for version in VERSIONS:
        base = 'openstack/%s/' % version
        out[base + 'meta_data.json'] = meta
        out[base + 'network_data.json'] = network
        out[base + 'vendor_data.json'] = b'{}'
        out[base + 'vendor_data2.json'] = b'{}'
        if user_data is not None:
            out[base + 'user_data'] = user_data
    return out


def _write_tree(files, root):
    for rel, data in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(data)


def _run(argv):
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise exception.InstanceDeployFailure(
            reason='config drive: %s failed (exit %d): %s'
                   % (argv[0], proc.returncode, proc.stderr.strip()))


def iso_tool():
    """argv prefix of the first ISO writer on PATH, or None."""
    for tool in _ISO_TOOLS:
        if shutil.which(tool[0]):
            return tool
    return None


def vfat_tools_present():
    return bool(shutil.which('mkfs.vfat') and shutil.which('mcopy'))


def make_drive(files, path, fmt='iso9660'):
    """Write ``files`` ({relative path: bytes}) as a config drive image.

    iso9660: label config-2, Joliet + Rock Ridge (xorriso, genisoimage or
    mkisofs).  vfat: a 64 MiB FAT image labelled config-2 (mkfs.vfat +
    mcopy from dosfstools/mtools; no mount, so no root or loop devices).
    """
    if fmt not in FORMATS:
        raise exception.Invalid(reason='config drive format %r is not one '
                                       'of %s' % (fmt, ', '.join(FORMATS)))
    with tempfile.TemporaryDirectory(prefix='cfgdrv-') as tmp:
        tree = os.path.join(tmp, 'tree')
        os.mkdir(tree)
        _write_tree(files, tree)
        part = path + '.part'
        try:
            if fmt == 'iso9660':
                tool = iso_tool()
                if tool is None:
                    raise exception.InstanceDeployFailure(
                        reason='config drive: no ISO 9660 writer (xorriso, '
                               'genisoimage or mkisofs) on this host')
                _run(list(tool) + ['-o', part, '-V', LABEL, '-J', '-r',
                                   '-quiet', tree])
            else:
                if not vfat_tools_present():
                    raise exception.InstanceDeployFailure(
                        reason='config drive: vfat needs mkfs.vfat '
                               '(dosfstools) and mcopy (mtools)')
                with open(part, 'wb') as f:
                    f.truncate(VFAT_SIZE)
                _run(['mkfs.vfat', '-n', LABEL, part])
                _run(['mcopy', '-o', '-s', '-i', part] +
                     [os.path.join(tree, name) for name in os.listdir(tree)]
                     + ['::/'])
            os.replace(part, path)
        finally:
            if os.path.exists(part):
                os.unlink(part)
    return path


def read_iso_label(path):
    """The ISO 9660 volume id (primary volume descriptor, sector 16)."""
    with open(path, 'rb') as f:
        f.seek(16 * 2048)
        pvd = f.read(72)
    if pvd[1:6] != b'CD001':
        return None
    return pvd[40:72].decode('ascii', 'replace').rstrip()

"""The documents a guest reads, built once per instance: OpenStack and EC2 formats, drive files.

Both the config drive (nova/virt/configdrive.py writes ``drive_files()``)
and the metadata API (nova/api/metadata/ serves ``openstack_document()`` and
``ec2_tree()``) read one ``InstanceContent``, so the two never disagree
about what a guest is told.
"""

import base64
import binascii
import json
import os
import zlib

from nova import exception
from nova.metadata import network_data as netdata
from nova.metadata import options as content_options
from nova.metadata import password, versions

MD_JSON = 'meta_data.json'
USER_DATA = 'user_data'
PASSWORD = 'password'
VD_JSON = 'vendor_data.json'
NW_JSON = 'network_data.json'
VD2_JSON = 'vendor_data2.json'
# The OpenStack documents in listing order, with the version each appears in.
OPENSTACK_DOCUMENTS = ((MD_JSON, versions.FOLSOM), (USER_DATA, versions.FOLSOM),
                       (PASSWORD, versions.GRIZZLY), (VD_JSON, versions.HAVANA),
                       (NW_JSON, versions.LIBERTY), (VD2_JSON, versions.NEWTON_TWO))
_SINCE = dict(OPENSTACK_DOCUMENTS)

JSON = 'application/json'
TEXT = 'text/plain'

# OpenStack versions written to the config drive besides 'latest'; cloud-init
# takes the newest it knows, so one dated copy keeps older readers working.
DRIVE_OPENSTACK_VERSIONS = (versions.ROCKY, versions.LATEST)
RANDOM_SEED_BYTES = 512
# Upstream's block-device-mapping for an instance that names no root device.
DEFAULT_MAPPINGS = {'ami': 'sda1', 'root': '/dev/sda1'}


def _attr(obj, name, default=None):
    """``obj.name``, or ``default`` when unset (a versioned object raises on unset fields)."""
    check = getattr(obj, 'obj_attr_is_set', None)
    if check is not None and not check(name):
        return default
    value = getattr(obj, name, default)
    return default if value is None else value


def decode_user_data(user_data):
    """Base64 text (as the API stores it) -> bytes; None stays None."""
    if user_data is None or user_data == '':
        return None
    try:
        return base64.b64decode(user_data, validate=True)
    except (binascii.Error, ValueError):
        raise exception.Invalid(reason='instance user_data is not valid base64')


def key_pair(instance):
    """{name, type, public_key} of the key the guest was given, or None."""
    raw = _attr(instance, 'key_data')
    if not raw:
        return None
    try:
        key = json.loads(raw)
    except ValueError:
        key = None
    if not isinstance(key, dict) or 'public_key' not in key:
        # A bare public key (as upstream stores key_data) under the key name.
        key = {'name': _attr(instance, 'key_name') or 'key', 'type': 'ssh', 'public_key': raw}
    return key


def dedicated_cpus(instance):
    """The guest CPUs pinned to host CPUs: all of them under a dedicated CPU policy."""
    specs = _attr(_attr(instance, 'flavor'), 'extra_specs', {}) or {}
    sysmeta = _attr(instance, 'system_metadata', {}) or {}
    policy = specs.get('hw:cpu_policy') or sysmeta.get('image_hw_cpu_policy')
    if policy != 'dedicated':
        return []
    return list(range(_attr(instance, 'vcpus') or _attr(_attr(instance, 'flavor'), 'vcpus', 0)))


def _ec2_id(prefix, image_id):
    # A stable 8-hex-digit id per image, as EC2 ids look (upstream maps them
    # through a table of its own; any stable id serves the guest): a UUID's
    # first digits, else a checksum of the id.
    digits = (image_id or '').replace('-', '').lower()
    if len(digits) < 8 or any(c not in '0123456789abcdef' for c in digits[:8]):
        digits = '%08x' % zlib.crc32((image_id or '').encode('utf-8'))
    return '%s-%s' % (prefix, digits[:8])


def block_device_mapping(root_device_name, block_devices=()):
    """EC2's block-device-mapping: ami, root, ebsN volumes, ephemeralN and swap."""
    if not root_device_name:
        return dict(DEFAULT_MAPPINGS)
    mapping = {'ami': root_device_name.removeprefix('/dev/'), 'root': root_device_name}
    volumes = sorted(b['device_name'] for b in block_devices
                     if b.get('destination_type') == 'volume' and b.get('device_name'))
    mapping.update(('ebs%d' % i, name) for i, name in enumerate(volumes))
    blanks = [b for b in block_devices if b.get('source_type') == 'blank'
              and b.get('destination_type') == 'local' and b.get('device_name')]
    swap = [b for b in blanks if b.get('guest_format') == 'swap']
    if swap:
        mapping['swap'] = swap[-1]['device_name']
    ephemerals = [b for b in blanks if b.get('guest_format') != 'swap']
    mapping.update(('ephemeral%d' % i, b['device_name']) for i, b in enumerate(ephemerals))
    return mapping


def devices(recorded, version):
    """The "devices" list at ``version`` from the instance's recorded tagged devices.

    A NIC's ``vlan`` appears from 2017-02-22 (when it has one), its
    ``vf_trusted`` from 2018-08-27, as upstream.
    """
    listed = []
    for device in recorded or ():
        entry = {key: device.get(key) for key in ('type', 'bus', 'address', 'tags')}
        if device.get('type') == 'nic':
            entry['mac'] = device.get('mac')
            if versions.at_least(version, versions.OCATA) and device.get('vlan') is not None:
                entry['vlan'] = device['vlan']
            if versions.at_least(version, versions.ROCKY):
                entry['vf_trusted'] = bool(device.get('vf_trusted'))
        else:
            entry['serial'] = device.get('serial')
        listed.append(entry)
    return listed


def dumps(document):
    return json.dumps(document, sort_keys=True).encode('utf-8')


class InstanceContent:
    """What one instance's guest is told; built once, each document rendered on demand.

    ``network_info`` defaults to the instance's network info cache;
    ``address`` is where the guest asked from (the metadata API's caller),
    ``admin_pass`` and ``injected_files`` exist on the config drive only, as
    upstream. ``block_devices`` are the instance's mappings (dicts) and
    ``security_groups`` the names of its groups, when the caller knows them.
    """

    def __init__(self, instance, options=None, network_info=None, address=None,
                 admin_pass=None, injected_files=(), block_devices=(), security_groups=()):
        self.instance = instance
        self.options = options or content_options.ContentOptions()
        self.address = address
        self.admin_pass = admin_pass
        if network_info is None:
            network_info = _attr(instance, 'network_info', [])
        self.network_data = netdata.network_data(network_info)
        self.fixed_ipv4, self.fixed_ipv6, self.floating_ips = netdata.addresses(network_info)
        self.user_data = decode_user_data(_attr(instance, 'user_data'))
        self.password = password.extract(_attr(instance, 'system_metadata', {}))
        self.key = key_pair(instance)
        self.block_devices = list(block_devices or ())
        self.security_groups = list(security_groups or ())
        self.files, self.content = [], {}
        for index, (path, contents) in enumerate(injected_files or ()):
            name = '%04d' % index
            self.files.append({'path': path, 'content_path': '/content/' + name})
            self.content[name] = contents.encode('utf-8') if isinstance(contents, str) \
                else contents
        self.vendor_data, self.vendor_data2 = self.options.vendor_data.collect(instance)

    # -- facts both formats share ------------------------------------------
    @property
    def uuid(self):
        return self.instance.uuid

    @property
    def project_id(self):
        return _attr(self.instance, 'project_id')

    @property
    def hostname(self):
        name = _attr(self.instance, 'hostname')
        if name and self.options.dhcp_domain:
            return '%s.%s' % (name, self.options.dhcp_domain)
        return name

    @property
    def availability_zone(self):
        zone = _attr(self.instance, 'availability_zone')
        if not zone and _attr(self.instance, 'host'):
            return self.options.default_availability_zone or None
        return zone or None

    # -- OpenStack format ---------------------------------------------------
    def meta_data(self, version=versions.LATEST):
        """The meta_data.json document at ``version``."""
        version = versions.openstack(version)
        inst = self.instance
        data = {
            'uuid': self.uuid,
            'name': _attr(inst, 'display_name') or _attr(inst, 'name'),
            'hostname': self.hostname,
            'launch_index': _attr(inst, 'launch_index', 0),
            'availability_zone': self.availability_zone,
            'meta': dict(_attr(inst, 'metadata', {}) or {}),
            'public_keys': {},
            'keys': [],
        }
        if self.key:
            # Upstream's shape: public_keys {name: key}; keys [{name, type, data}].
            data['public_keys'] = {self.key['name']: self.key['public_key']}
            data['keys'] = [{'name': self.key['name'], 'type': self.key.get('type', 'ssh'),
                             'data': self.key['public_key']}]
        if self.admin_pass:
            data['admin_pass'] = self.admin_pass
        if self.files:
            data['files'] = self.files
        if versions.at_least(version, versions.GRIZZLY):
            # Fresh for every rendering, as upstream: a seed is never handed out twice.
            data['random_seed'] = base64.b64encode(os.urandom(RANDOM_SEED_BYTES)).decode()
        if versions.at_least(version, versions.LIBERTY):
            data['project_id'] = self.project_id
        if versions.at_least(version, versions.NEWTON_ONE):
            data['devices'] = devices(_attr(inst, 'device_metadata', []), version)
        if versions.at_least(version, versions.VICTORIA):
            data['dedicated_cpus'] = dedicated_cpus(inst)
        return data

    def openstack_names(self, version):
        """The documents ``/openstack/<version>`` lists."""
        version = versions.openstack(version)
        return [name for name, since in OPENSTACK_DOCUMENTS
                if versions.at_least(version, since)
                and (name != USER_DATA or self.user_data is not None)]

    def openstack_document(self, version, name):
        """(body, content type) of one document; KeyError when ``version`` has none."""
        version = versions.openstack(version)
        if name not in _SINCE or not versions.at_least(version, _SINCE[name]):
            raise KeyError(name)
        if name == MD_JSON:
            return dumps(self.meta_data(version)), JSON
        if name == USER_DATA:
            if self.user_data is None:
                raise KeyError(name)
            return self.user_data, TEXT
        if name == PASSWORD:
            return (self.password or '').encode('utf-8'), TEXT
        if name == VD_JSON:
            if self.vendor_data is None:
                raise KeyError(name)    # StaticJSON is not a provider
            return dumps(self.vendor_data), JSON
        if name == NW_JSON:
            return dumps(self.network_data), JSON
        return dumps(self.vendor_data2), JSON

    # -- EC2 format ---------------------------------------------------------
    def ec2_meta_data(self, version=versions.LATEST):
        """The EC2 meta-data tree at ``version``: values are text, lists or subtrees.

        A subtree's ``_name`` is how its parent lists it (public-keys lists
        ``0=<key name>``).
        """
        version = versions.ec2(version)
        inst = self.instance
        hostname = self.hostname or ''
        data = {
            'ami-id': _ec2_id('ami', _attr(inst, 'image_ref')),
            'ami-launch-index': _attr(inst, 'launch_index', 0),
            'ami-manifest-path': 'FIXME',
            'instance-id': ('i-%08x' % _attr(inst, 'id') if _attr(inst, 'id') is not None
                            else _ec2_id('i', self.uuid)),
            'hostname': hostname,
            'local-ipv4': self.fixed_ipv4[0] if self.fixed_ipv4 else (self.address or ''),
            'reservation-id': _attr(inst, 'reservation_id', ''),
            'security-groups': list(self.security_groups),
        }
        if self.key:
            data['public-keys'] = {'0': {'_name': '0=' + self.key['name'],
                                         'openssh-key': self.key['public_key']}}
        if versions.at_least(version, '2007-01-19'):
            data['local-hostname'] = hostname
            data['public-hostname'] = hostname
            data['public-ipv4'] = self.floating_ips[0] if self.floating_ips else ''
        if versions.at_least(version, '2007-08-29'):
            data['instance-type'] = _attr(_attr(inst, 'flavor'), 'name', '')
        if versions.at_least(version, '2007-12-15'):
            data['block-device-mapping'] = block_device_mapping(
                _attr(inst, 'root_device_name'), self.block_devices)
            if _attr(inst, 'kernel_id'):
                data['kernel-id'] = _ec2_id('aki', _attr(inst, 'kernel_id'))
            if _attr(inst, 'ramdisk_id'):
                data['ramdisk-id'] = _ec2_id('ari', _attr(inst, 'ramdisk_id'))
        if versions.at_least(version, '2008-02-01'):
            data['placement'] = {'availability-zone': self.availability_zone or ''}
        if versions.at_least(version, '2008-09-01'):
            data['instance-action'] = 'none'
        return data

    def ec2_tree(self, version=versions.LATEST):
        """``/<version>``: meta-data, and user-data when the instance has some."""
        tree = {'meta-data': self.ec2_meta_data(version)}
        if self.user_data is not None:
            tree['user-data'] = self.user_data
        return tree

    # -- the config drive ---------------------------------------------------
    def drive_files(self):
        """{relative path: bytes} of everything on the config drive."""
        out = {}
        for version in versions.ec2_listing():
            if version in self.options.drive_skip_versions:
                continue
            tree = self.ec2_tree(version)
            if 'user-data' in tree:
                out['ec2/%s/user-data' % version] = tree['user-data']
            meta = tree['meta-data']
            if 'public-keys' in meta:
                meta['public-keys'] = {k: {n: v for n, v in key.items() if n != '_name'}
                                       for k, key in meta['public-keys'].items()}
            out['ec2/%s/meta-data.json' % version] = dumps(meta)
        for version in DRIVE_OPENSTACK_VERSIONS:
            for name in self.openstack_names(version):
                if name == PASSWORD:
                    continue    # the guest posts it to the metadata API
                try:
                    out['openstack/%s/%s' % (version, name)] = \
                        self.openstack_document(version, name)[0]
                except KeyError:
                    continue
        for name, data in self.content.items():
            out['openstack/content/' + name] = data
        return out

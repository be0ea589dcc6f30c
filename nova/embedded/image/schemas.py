"""The Glance v2 image JSON schema subset the embedded image service validates against."""

import copy

import jsonschema

UUID_PATTERN = ('^([0-9a-fA-F]){8}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}'
                '-([0-9a-fA-F]){4}-([0-9a-fA-F]){12}$')

DISK_FORMATS = ['ami', 'ari', 'aki', 'vhd', 'vhdx', 'vmdk', 'raw', 'qcow2',
                'vdi', 'iso', 'ploop']
CONTAINER_FORMATS = ['ami', 'ari', 'aki', 'bare', 'ovf', 'ova', 'docker',
                     'compressed']
VISIBILITIES = ['public', 'private', 'shared', 'community']

# Attribute names as Glance groups them (glance/api/v2/images.py and
# glance/domain): each group is rejected with a different message.
DISALLOWED = ('direct_url', 'self', 'file', 'schema', 'stores')
READ_ONLY = ('created_at', 'updated_at', 'status', 'checksum', 'size',
             'virtual_size', 'direct_url', 'self', 'file', 'schema', 'id',
             'os_hash_algo', 'os_hash_value')
RESERVED = ('location', 'deleted', 'deleted_at')
RESERVED_EXTRA = ('owner', 'locations', 'deleted', 'deleted_at', 'direct_url',
                  'self', 'file', 'schema')
RESERVED_PREFIX = 'os_glance'
# Base attributes a client may set on create or change with PATCH.
MUTABLE_BASE = ('name', 'visibility', 'protected', 'os_hidden', 'min_disk',
                'min_ram', 'disk_format', 'container_format', 'owner', 'tags')
# Every attribute of an image that is not a custom property.
BASE_ATTRIBUTES = ('id', 'name', 'status', 'visibility', 'protected',
                   'os_hidden', 'checksum', 'os_hash_algo', 'os_hash_value',
                   'owner', 'size', 'virtual_size', 'min_disk', 'min_ram',
                   'disk_format', 'container_format', 'created_at',
                   'updated_at', 'tags', 'self', 'file', 'schema',
                   'direct_url', 'locations', 'stores')

_NULL_STR = ['null', 'string']


def _props():
    return {
        'id': {'type': 'string', 'pattern': UUID_PATTERN,
               'description': 'An identifier for the image'},
        'name': {'type': _NULL_STR, 'maxLength': 255,
                 'description': 'Descriptive name for the image'},
        'status': {'type': 'string', 'readOnly': True,
                   'description': 'Status of the image',
                   'enum': ['queued', 'saving', 'active', 'killed', 'deleted',
                            'uploading', 'importing', 'pending_delete',
                            'deactivated']},
        'visibility': {'type': 'string', 'enum': VISIBILITIES,
                       'description': 'Scope of image accessibility'},
        'protected': {'type': 'boolean',
                      'description': 'If true, image will not be deletable.'},
        'os_hidden': {'type': 'boolean',
                      'description': 'If true, image will not appear in '
                                     'default image list response.'},
        'checksum': {'type': _NULL_STR, 'readOnly': True, 'maxLength': 32,
                     'description': 'md5 hash of image contents.'},
        'os_hash_algo': {'type': _NULL_STR, 'readOnly': True, 'maxLength': 64,
                         'description': 'Algorithm to calculate the '
                                        'os_hash_value'},
        'os_hash_value': {'type': _NULL_STR, 'readOnly': True,
                          'maxLength': 128,
                          'description': 'Hexdigest of the image contents '
                                         'using the algorithm specified by '
                                         'the os_hash_algo'},
        'owner': {'type': _NULL_STR, 'maxLength': 255,
                  'description': 'Owner of the image'},
        'size': {'type': ['null', 'integer'], 'readOnly': True,
                 'description': 'Size of image file in bytes'},
        'virtual_size': {'type': ['null', 'integer'], 'readOnly': True,
                         'description': 'Virtual size of image in bytes'},
        'container_format': {'type': _NULL_STR,
                             'enum': [None] + CONTAINER_FORMATS,
                             'description': 'Format of the container'},
        'disk_format': {'type': _NULL_STR, 'enum': [None] + DISK_FORMATS,
                        'description': 'Format of the disk'},
        'created_at': {'type': 'string', 'readOnly': True,
                       'description': 'Date and time of image registration'},
        'updated_at': {'type': 'string', 'readOnly': True,
                       'description': 'Date and time of the last image '
                                      'modification'},
        'tags': {'type': 'array', 'items': {'type': 'string', 'maxLength': 255},
                 'description': 'List of strings related to the image'},
        'min_ram': {'type': 'integer',
                    'description': 'Amount of ram (in MB) required to boot '
                                   'image.'},
        'min_disk': {'type': 'integer',
                     'description': 'Amount of disk space (in GB) required to '
                                    'boot image.'},
        'self': {'type': 'string', 'readOnly': True,
                 'description': 'An image self url'},
        'file': {'type': 'string', 'readOnly': True,
                 'description': 'An image file url'},
        'schema': {'type': 'string', 'readOnly': True,
                   'description': 'An image schema url'},
        'locations': {'type': 'array', 'items': {'type': 'object'},
                      'description': 'A set of URLs to access the image file '
                                     'kept in external store'},
        # Glance ships these in etc/schema-image.json; nova relies on the
        # kernel/ramdisk ids being UUIDs of other images.
        'kernel_id': {'type': _NULL_STR, 'pattern': UUID_PATTERN,
                      'is_base': False,
                      'description': 'ID of image stored in Glance that '
                                     'should be used as the kernel when '
                                     'booting an AMI-style image.'},
        'ramdisk_id': {'type': _NULL_STR, 'pattern': UUID_PATTERN,
                       'is_base': False,
                       'description': 'ID of image stored in Glance that '
                                      'should be used as the ramdisk when '
                                      'booting an AMI-style image.'},
    }


IMAGE_SCHEMA = {
    'name': 'image',
    'properties': _props(),
    # Custom properties are allowed, but only as strings.
    'additionalProperties': {'type': 'string'},
    'links': [
        {'rel': 'self', 'href': '{self}'},
        {'rel': 'enclosure', 'href': '{file}'},
        {'rel': 'describedby', 'href': '{schema}'},
    ],
}

IMAGES_SCHEMA = {
    'name': 'images',
    'properties': {
        'images': {'type': 'array', 'items': IMAGE_SCHEMA},
        'schema': {'type': 'string'},
        'first': {'type': 'string'},
        'next': {'type': 'string'},
    },
    'links': [
        {'rel': 'first', 'href': '{first}'},
        {'rel': 'next', 'href': '{next}'},
        {'rel': 'describedby', 'href': '{schema}'},
    ],
}

MEMBER_SCHEMA = {
    'name': 'member',
    'properties': {
        'member_id': {'type': 'string',
                      'description': 'An identifier for the image member '
                                     '(tenantId)'},
        'image_id': {'type': 'string', 'pattern': UUID_PATTERN,
                     'description': 'An identifier for the image'},
        'created_at': {'type': 'string',
                       'description': 'Date and time of image member '
                                      'creation'},
        'updated_at': {'type': 'string',
                       'description': 'Date and time of last modification of '
                                      'image member'},
        'status': {'type': 'string',
                   'enum': ['pending', 'accepted', 'rejected'],
                   'description': 'The status of this image member'},
        'schema': {'type': 'string', 'readOnly': True},
    },
}

MEMBERS_SCHEMA = {
    'name': 'members',
    'properties': {
        'members': {'type': 'array', 'items': MEMBER_SCHEMA},
        'schema': {'type': 'string'},
    },
    'links': [
        {'rel': 'describedby', 'href': '{schema}'},
    ],
}

_VALIDATOR = jsonschema.Draft4Validator(
    dict(IMAGE_SCHEMA, type='object'))


def schema_document(name):
    """The schema served at /v2/schemas/<name>, or None if unknown."""
    docs = {'image': IMAGE_SCHEMA, 'images': IMAGES_SCHEMA,
            'member': MEMBER_SCHEMA, 'members': MEMBERS_SCHEMA}
    doc = docs.get(name)
    return copy.deepcopy(doc) if doc is not None else None


def validation_error(obj):
    """Return Glance's message for the first schema violation, else None."""
    error = next(iter(_VALIDATOR.iter_errors(obj)), None)
    if error is None:
        return None
    return ("Provided object does not match schema 'image': %s"
            % error.message)


def is_reserved(key):
    """True for custom property names Glance keeps for itself."""
    return key in RESERVED or key.startswith(RESERVED_PREFIX)

"""PATCH /v2/images/{id}: Glance's two JSON-patch media types, parsed and applied."""

import re

import webob.exc

from nova.embedded.image import schemas

# Glance's v2.0 patch follows JSON-schema draft 4 ({"replace": "/name",
# "value": ...}); v2.1 follows RFC 6902 ({"op": "replace", "path": ...}).
MEDIA_TYPES = {
    'application/openstack-images-v2.0-json-patch': 4,
    'application/openstack-images-v2.1-json-patch': 10,
}
OPERATIONS = ('add', 'remove', 'replace')


class Change:
    """One parsed operation on a top-level image attribute."""

    def __init__(self, op, name, value=None, draft=10):
        self.op = op
        self.name = name
        self.value = value
        self.draft = draft


def _bad(msg):
    return webob.exc.HTTPBadRequest(explanation=msg)


def _forbidden(msg):
    return webob.exc.HTTPForbidden(explanation=msg)


def _conflict(msg):
    return webob.exc.HTTPConflict(explanation=msg)


def check_media_type(content_type):
    """The draft version for ``content_type``; 415 for anything else."""
    if content_type not in MEDIA_TYPES:
        raise webob.exc.HTTPUnsupportedMediaType(
            headers={'Accept-Patch': ', '.join(sorted(MEDIA_TYPES))})
    return MEDIA_TYPES[content_type]


def _operation(raw, draft):
    if draft == 10:
        op = raw.get('op')
        if op not in OPERATIONS:
            raise _bad('Invalid operation: `%s`. It must be one of the '
                       'following: %s.' % (op, ', '.join(OPERATIONS)))
        if 'path' not in raw:
            raise _bad("Unable to find 'path' in JSON Schema change")
        return op, raw['path']
    ops = [key for key in OPERATIONS if key in raw]
    if len(ops) != 1:
        raise _bad('Operation objects must contain exactly one member named '
                   '"add", "remove", or "replace".')
    return ops[0], raw[ops[0]]


def _attribute_name(pointer):
    """The attribute a pointer names; only one level is patchable."""
    if not isinstance(pointer, str) or not pointer.startswith('/'):
        raise _bad('Pointer `%s` does not start with "/".' % pointer)
    if re.search('~[^01]', pointer) or pointer.endswith('~'):
        raise _bad('Pointer `%s` contains "~" not part of a recognized escape '
                   'sequence.' % pointer)
    parts = pointer[1:].split('/')
    if len(parts) != 1 or not parts[0].strip():
        raise _bad("Invalid JSON pointer for this resource: '%s'" % pointer)
    return parts[0].replace('~1', '/').replace('~0', '~').strip()


def _validate(change):
    name = change.name
    if name in schemas.READ_ONLY:
        raise _forbidden("Attribute '%s' is read-only." % name)
    if schemas.is_reserved(name) or name == 'locations':
        raise _forbidden("Attribute '%s' is reserved." % name)
    if change.op == 'remove':
        return
    if len(name) > 255:
        raise _bad('Custom property should not be greater than 255 '
                   'characters.')
    error = schemas.validation_error({name: change.value})
    if error:
        raise _bad(error)
    if name in ('min_ram', 'min_disk') and change.value < 0:
        raise _bad("Invalid value '%s' for parameter '%s': Cannot be a "
                   "negative value." % (change.value, name))


def parse(body, draft):
    """Turn a decoded PATCH body into validated Changes (or raise 4xx)."""
    if not isinstance(body, list):
        raise _bad('Request body must be a JSON array of operation objects.')
    changes = []
    for raw in body:
        if not isinstance(raw, dict):
            raise _bad('Operations must be JSON objects.')
        op, pointer = _operation(raw, draft)
        change = Change(op, _attribute_name(pointer), draft=draft)
        if op != 'remove':
            if 'value' not in raw:
                raise _bad('Operation "%s" requires a member named "value".'
                           % op)
            change.value = raw['value']
        _validate(change)
        changes.append(change)
    return changes


def _set_base(record, name, value):
    if name in ('disk_format', 'container_format') \
            and record['status'] != 'queued':
        raise _forbidden('Attribute %s can be only replaced for a queued '
                         'image.' % name)
    if name == 'tags':
        value = list(dict.fromkeys(value))
    record[name] = value


def _apply_one(record, change):
    name, props = change.name, record['properties']
    is_base = name in schemas.MUTABLE_BASE
    if change.op == 'remove':
        if is_base:
            raise _forbidden('Property %s may not be removed.' % name)
        if name not in props:
            raise _conflict('Property %s does not exist.' % name)
        del props[name]
        return
    exists = is_base or name in props
    if change.op == 'replace' and not exists:
        raise _conflict('Property %s does not exist.' % name)
    if change.op == 'add' and exists and change.draft == 4:
        raise _conflict('Property %s already present.' % name)
    if is_base:
        _set_base(record, name, change.value)
    else:
        props[name] = change.value


def apply(record, changes):
    """Apply ``changes`` in order to ``record`` (a private copy)."""
    for change in changes:
        _apply_one(record, change)

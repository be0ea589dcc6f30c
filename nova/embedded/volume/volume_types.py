"""Volume types of the embedded volume service: the default, admin-made ones, extra specs."""

import uuid

from nova.embedded.volume import errors, store
from nova.embedded.volume.store import TYPES, VOLUMES

DEFAULT_TYPE = {
    'id': str(uuid.uuid5(uuid.NAMESPACE_URL, 'nova-embedded-volume/__DEFAULT__')),
    'name': '__DEFAULT__',
    'description': 'Default Volume Type',
    'is_public': True,
    'extra_specs': {},
}
# Cinder's spelling of a capability that is on, for the 'multiattach' spec.
MULTIATTACH_SPEC = 'multiattach'
SPEC_TRUE = '<is> True'
# Extra specs Cinder shows to users who are not administrators.
USER_VISIBLE_SPECS = ('multiattach', 'RESKEY:availability_zones', 'replication_enabled')


def is_multiattach(vtype):
    """Does a volume of this type take several attachments (Cinder's rule)?"""
    value = (vtype.get('extra_specs') or {}).get(MULTIATTACH_SPEC, '')
    return str(value).strip().lower() == SPEC_TRUE.lower()


def visible_specs(vtype, caller):
    specs = dict(vtype.get('extra_specs') or {})
    if caller.is_admin:
        return specs
    return {k: v for k, v in specs.items() if k in USER_VISIBLE_SPECS}


def _check_admin(caller):
    if not caller.is_admin:
        raise errors.Forbidden("Policy doesn't allow volume_extension:types_manage "
                               "to be performed.")


def all_types(manager):
    return [DEFAULT_TYPE] + sorted(manager.store.list(TYPES), key=lambda t: t['created_ns'])


def find(manager, caller, name_or_id):
    """The type named or identified so, as the caller may see it; 404 otherwise.

    None, '' and 'default' mean the default type.
    """
    if name_or_id in (None, '', 'default'):
        return DEFAULT_TYPE
    for vtype in all_types(manager):
        if name_or_id in (vtype['id'], vtype['name']) and (
                vtype['is_public'] or caller.is_admin):
            return vtype
    raise errors.NotFound('Volume type %s could not be found.' % name_or_id)


def listed(manager, caller):
    return [t for t in all_types(manager) if t['is_public'] or caller.is_admin]


def _name_taken(manager, name, but=None):
    return any(t['name'] == name and t['id'] != but for t in all_types(manager))


def create(manager, caller, name, description=None, is_public=True, extra_specs=None):
    _check_admin(caller)
    name = name.strip()
    if not name:
        raise errors.BadRequest('Invalid input received: volume type name can not '
                                'be empty.')
    with manager.store.lock:
        if _name_taken(manager, name):
            raise errors.Conflict('Volume Type %s already exists.' % name)
        return manager.store.put(TYPES, {
            'id': str(uuid.uuid4()), 'name': name, 'description': description,
            'is_public': bool(is_public), 'extra_specs': dict(extra_specs or {}),
            'created_at': store.now(), 'updated_at': None})


def _own(manager, caller, type_id):
    """A type an administrator may change: not the built-in default."""
    _check_admin(caller)
    vtype = find(manager, caller, type_id)
    if vtype['id'] == DEFAULT_TYPE['id']:
        raise errors.BadRequest('Invalid volume type: the default volume type can '
                                'not be changed or deleted.')
    return vtype


def update(manager, caller, type_id, changes):
    with manager.store.lock:
        vtype = _own(manager, caller, type_id)
        if 'name' in changes:
            changes['name'] = changes['name'].strip()
            if not changes['name']:
                raise errors.BadRequest('Invalid input received: volume type name '
                                        'can not be empty.')
            if _name_taken(manager, changes['name'], but=vtype['id']):
                raise errors.Conflict('Volume Type %s already exists.'
                                      % changes['name'])
        return manager.store.update(TYPES, vtype['id'], **changes)


def delete(manager, caller, type_id):
    with manager.store.lock:
        vtype = _own(manager, caller, type_id)
        if any(v['volume_type_id'] == vtype['id']
               for v in manager.store.list(VOLUMES)):
            raise errors.BadRequest('Target volume type is still in use.')
        manager.store.remove(TYPES, vtype['id'])


def set_specs(manager, caller, type_id, specs):
    with manager.store.lock:
        vtype = _own(manager, caller, type_id)
        merged = dict(vtype['extra_specs'], **specs)
        return manager.store.update(TYPES, vtype['id'], extra_specs=merged)


def delete_spec(manager, caller, type_id, key):
    with manager.store.lock:
        vtype = _own(manager, caller, type_id)
        if key not in vtype['extra_specs']:
            raise errors.NotFound('Volume Type %s has no extra specs with key %s.'
                                  % (vtype['id'], key))
        specs = {k: v for k, v in vtype['extra_specs'].items() if k != key}
        manager.store.update(TYPES, vtype['id'], extra_specs=specs)

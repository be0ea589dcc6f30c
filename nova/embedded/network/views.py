"""Response bodies: stored records as the caller may see them, in Neutron's shape."""

from nova.embedded.network import attributes

# Keys of stored records that never leave the service.
_INTERNAL = ('created_ns',)


def public(record, resource, caller, extra=None):
    """A copy of ``record`` without internal keys and, for non-administrators,
    without the attributes Neutron shows to administrators only."""
    attrs = attributes.RESOURCES[resource]
    body = {k: val for k, val in record.items()
            if k not in _INTERNAL and not k.startswith('_')}
    if not caller.is_admin:
        for name, attr in attrs.items():
            if attr.admin_read:
                body.pop(name, None)
    body['tenant_id'] = body['project_id'] = record.get('project_id')
    body.setdefault('tags', [])
    if extra:
        body.update(extra)
    return body

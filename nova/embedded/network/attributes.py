"""The attribute map of every resource served, and Neutron's request body checks over it."""

import typing

from nova.embedded.network import errors
from nova.embedded.network import validators as v

# The attribute is required on create (no default).
REQUIRED = object()
# Absent from the body unless given: the resource decides (an IP, a MAC...).
UNSET = object()


class AttrSpec(typing.NamedTuple):
    """One attribute: what POST and PUT may set, defaults, filters and sort keys."""

    post: bool = False
    put: bool = False
    default: object = UNSET
    convert: typing.Callable | None = None
    validate: typing.Callable | None = None
    filter: bool = True
    sort: bool = True
    # Shown to administrators only (Neutron's admin-only get_* attribute rules).
    admin_read: bool = False
    # A filter value conversion, when it differs from the body's (booleans).
    filter_convert: typing.Callable | None = None


def _bool(default=True, post=True, put=True):
    return AttrSpec(post=post, put=put, default=default, convert=v.to_boolean,
                filter_convert=v.to_boolean)


def _name():
    return AttrSpec(post=True, put=True, default='', validate=v.name_string)


def _ro(filter=True, sort=True, admin_read=False):
    return AttrSpec(filter=filter, sort=sort, admin_read=admin_read)


def _standard():
    """Attributes every standard-attr resource carries (description, stamps, tags)."""
    return {
        'description': AttrSpec(post=True, put=True, default='',
                            validate=lambda x, _a=None: v.string(x, v.DESCRIPTION_MAX)),
        'created_at': _ro(), 'updated_at': _ro(),
        'revision_number': _ro(),
        'tags': _ro(sort=False),
    }


def _owner():
    owner = AttrSpec(post=True, default=UNSET,
                 validate=lambda x, _a=None: v.string(x, v.PROJECT_ID_MAX))
    return {'tenant_id': owner, 'project_id': owner}


NETWORK = dict(
    id=_ro(), name=_name(), subnets=_ro(filter=False, sort=False),
    admin_state_up=_bool(), status=_ro(), shared=_bool(False),
    mtu=AttrSpec(post=True, put=True, convert=v.to_int, validate=v.int_range(68, 65535)),
    port_security_enabled=_bool(),
    **{'router:external': _bool(False)},
    dns_domain=AttrSpec(post=True, put=True, default='',
                    validate=lambda x, _a=None: v.string(x, v.DNS_NAME_MAX)),
    **_owner(), **_standard())

SUBNET = dict(
    id=_ro(), name=_name(),
    ip_version=AttrSpec(post=True, default=REQUIRED, convert=v.to_int,
                    validate=v.values([4, 6])),
    network_id=AttrSpec(post=True, default=REQUIRED, validate=v.uuid_value),
    subnetpool_id=AttrSpec(post=True, default=None, validate=v.uuid_or_none),
    prefixlen=AttrSpec(post=True, convert=v.to_int, filter=False, sort=False),
    cidr=AttrSpec(post=True, convert=v.canonical_cidr, validate=v.subnet_or_none),
    gateway_ip=AttrSpec(post=True, put=True, convert=v.canonical_ip,
                    validate=v.ip_address_or_none),
    allocation_pools=AttrSpec(post=True, put=True, convert=v.canonical_pools,
                          validate=v.ip_pools, filter=False, sort=False),
    dns_nameservers=AttrSpec(post=True, put=True, convert=v.none_to_empty_list,
                         validate=v.nameservers, filter=False, sort=False),
    host_routes=AttrSpec(post=True, put=True, convert=v.none_to_empty_list,
                     validate=v.hostroutes, filter=False, sort=False),
    enable_dhcp=_bool(),
    ipv6_ra_mode=AttrSpec(post=True, default=None,
                      validate=v.values(['slaac', 'dhcpv6-stateful',
                                         'dhcpv6-stateless', None])),
    ipv6_address_mode=AttrSpec(post=True, default=None,
                           validate=v.values(['slaac', 'dhcpv6-stateful',
                                              'dhcpv6-stateless', None])),
    service_types=AttrSpec(post=True, put=True, default=[], filter=False, sort=False,
                       validate=lambda x, _a=None: None if x == [] else
                       'Subnet service types are not supported here'),
    **_owner(), **_standard())

PORT = dict(
    id=_ro(), name=_name(),
    network_id=AttrSpec(post=True, default=REQUIRED, validate=v.uuid_value),
    admin_state_up=_bool(),
    mac_address=AttrSpec(post=True, put=True, convert=v.sanitized_mac,
                     validate=v.mac_address),
    fixed_ips=AttrSpec(post=True, put=True, validate=v.fixed_ips, sort=False),
    device_id=AttrSpec(post=True, put=True, default='',
                   validate=lambda x, _a=None: v.string(x, v.DEVICE_ID_MAX)),
    device_owner=AttrSpec(post=True, put=True, default='',
                      validate=lambda x, _a=None: v.string(x, v.DEVICE_OWNER_MAX)),
    status=_ro(),
    security_groups=AttrSpec(post=True, put=True, convert=v.none_to_empty_list,
                         validate=v.uuid_list, sort=False),
    port_security_enabled=AttrSpec(post=True, put=True, convert=v.to_boolean,
                               filter_convert=v.to_boolean),
    dns_name=AttrSpec(post=True, put=True, default='', validate=v.dns_host_name),
    dns_assignment=_ro(filter=False, sort=False),
    **{
        'binding:host_id': AttrSpec(post=True, put=True, default='',
                                validate=lambda x, _a=None: v.string_or_none(x, 255),
                                admin_read=True),
        'binding:vnic_type': AttrSpec(post=True, put=True, default='normal',
                                  validate=v.values([
                                      'normal', 'direct', 'macvtap', 'baremetal',
                                      'direct-physical', 'virtio-forwarder',
                                      'smart-nic', 'vdpa', 'remote-managed'])),
        'binding:profile': AttrSpec(post=True, put=True, default={},
                                convert=v.none_to_empty_dict, validate=v.dict_or_empty,
                                filter=False, sort=False, admin_read=True),
        'binding:vif_type': _ro(admin_read=True),
        'binding:vif_details': _ro(filter=False, sort=False, admin_read=True),
    },
    **_owner(), **_standard())

SECURITY_GROUP = dict(
    id=_ro(),
    name=AttrSpec(post=True, put=True, default='', validate=v.name_string),
    security_group_rules=_ro(filter=False, sort=False),
    shared=_ro(sort=False), stateful=_ro(sort=False),
    **_owner(), **_standard())

SECURITY_GROUP_RULE = dict(
    id=_ro(),
    security_group_id=AttrSpec(post=True, default=REQUIRED, validate=v.uuid_value),
    remote_group_id=AttrSpec(post=True, default=None, validate=v.uuid_or_none),
    direction=AttrSpec(post=True, default=REQUIRED, validate=v.values(['ingress', 'egress'])),
    protocol=AttrSpec(post=True, default=None),
    port_range_min=AttrSpec(post=True, default=None),
    port_range_max=AttrSpec(post=True, default=None),
    ethertype=AttrSpec(post=True, default='IPv4'),
    remote_ip_prefix=AttrSpec(post=True, default=None),
    remote_address_group_id=_ro(),
    normalized_cidr=_ro(sort=False),
    belongs_to_default_sg=_ro(sort=False),
    **_owner(), **_standard())

RESOURCES = {
    'network': NETWORK, 'subnet': SUBNET, 'port': PORT,
    'security_group': SECURITY_GROUP, 'security_group_rule': SECURITY_GROUP_RULE,
}


def _owner_fields(caller, item):
    """Both owner keys, filled from the caller on create; 400 if they disagree."""
    project = item.get('project_id', item.get('tenant_id'))
    if ('project_id' in item and 'tenant_id' in item
            and item['project_id'] != item['tenant_id']):
        raise errors.NeutronBadRequest("'project_id' and 'tenant_id' do not match")
    if project is not None and project != caller.project_id and not caller.is_admin:
        raise errors.NeutronBadRequest("Specifying 'project_id' other than the "
                                       "authenticated project in request is not "
                                       "allowed for the current user.")
    return project


def _one(caller, resource, item, attrs, is_create):
    if not isinstance(item, dict):
        raise errors.NeutronBadRequest("Object '%s' contains invalid data" % resource)
    item = dict(item)
    project = _owner_fields(caller, item)
    unknown = sorted(set(item) - set(attrs))
    if unknown:
        raise errors.NeutronBadRequest("Unrecognized attribute(s) '%s'" % ', '.join(unknown))
    if is_create:
        for name, attr in attrs.items():
            if name in ('tenant_id', 'project_id'):
                continue
            if not attr.post:
                if name in item:
                    raise errors.NeutronBadRequest("Attribute '%s' not allowed in POST" % name)
            elif name not in item:
                if attr.default is REQUIRED:
                    raise errors.NeutronBadRequest("Failed to parse request. Required "
                                                   "attribute '%s' not specified" % name)
                if attr.default is not UNSET:
                    item[name] = attr.default
        project = project or caller.project_id
        item['project_id'] = item['tenant_id'] = project
    else:
        for name in item:
            if not attrs[name].put:
                raise errors.NeutronBadRequest('Cannot update read-only attribute %s' % name)
    for name, value in list(item.items()):
        attr = attrs[name]
        if attr.convert is not None and value is not UNSET:
            value = item[name] = attr.convert(value)
        if attr.validate is not None:
            msg = attr.validate(value)
            if msg:
                raise errors.NeutronBadRequest('Invalid input for %s. Reason: %s.' % (name, msg))
    return item


def prepare(caller, resource, body, is_create, allow_bulk=True):
    """The checked, converted, defaulted items of a POST or PUT body.

    Returns ``(items, bulk)``; ``items`` is a list of one unless the body
    used the plural (bulk create) form.
    """
    attrs = RESOURCES[resource]
    plural = resource + 's'
    if not body:
        raise errors.NeutronBadRequest('Resource body required')
    if not isinstance(body, dict):
        raise errors.NeutronBadRequest('Body contains invalid data')
    if plural in body and is_create and allow_bulk:
        entries = body[plural]
        if not isinstance(entries, list):
            raise errors.NeutronBadRequest('Body contains invalid data')
        if not entries:
            raise errors.NeutronBadRequest('Resources required')
        return [_one(caller, resource, entry.get(resource, entry)
                     if isinstance(entry, dict) else entry, attrs, True)
                for entry in entries], True
    if resource not in body:
        raise errors.NeutronBadRequest("Unable to find '%s' in request body" % resource)
    return [_one(caller, resource, body[resource], attrs, is_create)], False

"""nova-manage image_property show/set: an instance's effective image properties."""

import sys

from nova import exception
from nova import vm_states as vs
from nova.image import sysmeta
from nova.objects import image_meta

# Return codes, as upstream's nova-manage documents them (3, a missing cell
# mapping, cannot happen here).
OK, UNEXPECTED, NO_INSTANCE, NO_PROPERTY, BAD_STATE, BAD_NAME, BAD_VALUE = 0, 1, 2, 4, 4, 5, 6
# Upstream allows shelved instances too; any other state would let a running
# guest disagree with its recorded properties.
ALLOWED_VM_STATES = (vs.STOPPED, vs.SHELVED, vs.SHELVED_OFFLOADED)


def _canonical(name):
    return image_meta.LEGACY_ALIASES.get(name, name)


def show(conf, db):
    args = conf.category
    try:
        row = db.instance_get(args.instance_uuid)
    except exception.InstanceNotFound as exc:
        print(exc.format_message(), file=sys.stderr)
        return NO_INSTANCE
    key = sysmeta.SYSMETA_PREFIX + _canonical(args.image_property)
    value = (row['system_metadata'] or {}).get(key)
    if value is None:
        print('Image property %s not found for instance %s' % (
            args.image_property, args.instance_uuid), file=sys.stderr)
        return NO_PROPERTY
    print(value)
    return OK


def set_(conf, db):
    args = conf.category
    pairs = {}
    for item in args.property or []:
        name, sep, value = item.partition('=')
        if not sep or not name:
            print('Invalid property %r: expected NAME=VALUE' % item, file=sys.stderr)
            return BAD_NAME
        pairs[name] = value
    if not pairs:
        print('At least one --property NAME=VALUE is required', file=sys.stderr)
        return BAD_NAME
    canonical = {}
    for name, value in pairs.items():
        try:
            canonical.update(image_meta.normalize_props({name: value}, strict=True))
        except exception.InvalidImageProperty as exc:
            print(exc.format_message(), file=sys.stderr)
            unknown = exc.kwargs.get('reason') == 'unknown image property'
            return BAD_NAME if unknown else BAD_VALUE
    try:
        row = db.instance_get(args.instance_uuid)
    except exception.InstanceNotFound as exc:
        print(exc.format_message(), file=sys.stderr)
        return NO_INSTANCE
    if row['vm_state'] not in ALLOWED_VM_STATES or row['task_state'] is not None:
        print('Instance %s is in vm_state %s (task_state %s); it must be stopped '
              '(SHUTOFF) or shelved' % (row['uuid'], row['vm_state'], row['task_state']),
              file=sys.stderr)
        return BAD_STATE
    system_metadata = dict(row['system_metadata'] or {})
    for name, value in canonical.items():
        system_metadata[sysmeta.SYSMETA_PREFIX + name] = sysmeta.truncate_utf8(str(value))
    try:
        # Compare-and-swap: a start racing with us wins, and nothing changes.
        db.instance_update(row['uuid'], {'system_metadata': system_metadata},
                           expected_vm_state=ALLOWED_VM_STATES, expected_task_state=[None])
    except exception.UnexpectedTaskStateError as exc:
        print(exc.format_message(), file=sys.stderr)
        return BAD_STATE
    return OK


def add_parsers(image_sub, run):
    """Register show/set on ``nova-manage image_property``."""
    show_p = image_sub.add_parser('show', help="Show one of an instance's image properties")
    show_p.add_argument('instance_uuid')
    show_p.add_argument('image_property')
    show_p.set_defaults(func=run(show))
    set_p = image_sub.add_parser(
        'set', help="Set image properties of a stopped instance (its image system metadata)")
    set_p.add_argument('instance_uuid')
    set_p.add_argument('--property', action='append', metavar='NAME=VALUE',
                       help='Image property to set (repeatable)')
    set_p.set_defaults(func=run(set_))

"""nova-manage: schema migrations, flavors, image-property tools and host keys for operators."""

import json
import sys

from oslo_config import cfg

import nova.conf
from nova import exception
from nova.cmd import common, manage_conductor, manage_db, manage_image
from nova.db import api as db_api
from nova.db import migration

DEFAULT_FLAVORS = [
    # (flavorid, name, vcpus, memory_mb, root_gb)
    ('1', 'm1.tiny', 1, 512, 1),
    ('2', 'm1.small', 1, 2048, 20),
    ('3', 'm1.medium', 2, 4096, 40),
    ('4', 'm1.large', 4, 8192, 80),
    ('5', 'm1.xlarge', 8, 16384, 160),
]


def seed_flavors(db):
    """Create the default m1.* flavors that do not exist yet."""
    created = []
    for flavorid, name, vcpus, ram, disk in DEFAULT_FLAVORS:
        try:
            db.flavor_create(dict(flavorid=flavorid, name=name, vcpus=vcpus,
                                  memory_mb=ram, root_gb=disk))
            created.append(name)
        except exception.FlavorExists:
            pass
    return created


def _db(conf):
    return db_api.Database.from_conf(conf)


def db_sync(conf):
    db = _db(conf)
    db.sync()
    print('Database at revision %s' % migration.db_version(db.engine))


def db_version(conf):
    print(migration.db_version(_db(conf).engine))


def flavor_create(conf):
    args = conf.category
    flavor = _db(conf).flavor_create(dict(
        flavorid=args.id or args.flavor_name, name=args.flavor_name, vcpus=args.vcpus,
        memory_mb=args.ram, root_gb=args.disk, ephemeral_gb=args.ephemeral,
        swap=args.swap, is_public=not args.private,
        extra_specs=dict(kv.split('=', 1) for kv in args.property or [])))
    print(json.dumps(flavor, default=str, indent=2))


def flavor_list(conf):
    for f in _db(conf).flavor_get_all(is_public=None):
        print('%-10s %-16s vcpus=%-3d ram=%-6d disk=%-4d' % (
            f['flavorid'], f['name'], f['vcpus'], f['memory_mb'], f['root_gb']))


def flavor_delete(conf):
    _db(conf).flavor_destroy(conf.category.id)


def flavor_seed(conf):
    print('created: %s' % (', '.join(seed_flavors(_db(conf))) or 'none'))


def image_property_validate(conf):
    """Check KEY=VALUE pairs against the image metadata model."""
    from nova.objects import image_meta
    props = dict(kv.split('=', 1) for kv in conf.category.property)
    print(json.dumps(image_meta.normalize_props(props, strict=True), indent=2))


def _with_db(command):
    """A command ``(conf, db)`` that returns its exit code, as ``func(conf)``."""
    def run(conf):
        db = _db(conf)
        try:
            return command(conf, db)
        finally:
            db.dispose()
    return run


def _add_parsers(subparsers):
    db = subparsers.add_parser('db', help='Database schema').add_subparsers(dest='action')
    db.add_parser('sync', help='Upgrade the schema').set_defaults(func=db_sync)
    db.add_parser('version', help='Show the schema revision').set_defaults(func=db_version)
    manage_db.add_parsers(db, _with_db)

    flavor = subparsers.add_parser('flavor', help='Flavors').add_subparsers(dest='action')
    create = flavor.add_parser('create', help='Create a flavor')
    # 'name' is reserved on oslo.config's sub-command namespace.
    create.add_argument('flavor_name', metavar='NAME')
    create.add_argument('--id')
    create.add_argument('--vcpus', type=int, default=1)
    create.add_argument('--ram', type=int, default=512, help='MiB')
    create.add_argument('--disk', type=int, default=1, help='GiB')
    create.add_argument('--ephemeral', type=int, default=0, help='GiB')
    create.add_argument('--swap', type=int, default=0, help='MiB')
    create.add_argument('--private', action='store_true')
    create.add_argument('--property', action='append', help='extra spec KEY=VALUE')
    create.set_defaults(func=flavor_create)
    flavor.add_parser('list', help='List flavors').set_defaults(func=flavor_list)
    delete = flavor.add_parser('delete', help='Delete a flavor')
    delete.add_argument('id')
    delete.set_defaults(func=flavor_delete)
    flavor.add_parser('seed', help='Create the default m1.* flavors').set_defaults(
        func=flavor_seed)

    image = subparsers.add_parser('image_property', help='Image metadata properties')
    image_sub = image.add_subparsers(dest='action')
    validate = image_sub.add_parser('validate', help='Validate KEY=VALUE properties')
    validate.add_argument('property', nargs='+')
    validate.set_defaults(func=image_property_validate)
    manage_image.add_parsers(image_sub, _with_db)

    manage_conductor.add_parsers(subparsers)


@common.clean_exit
def main(argv=None):
    conf = nova.conf.CONF
    conf.register_cli_opt(cfg.SubCommandOpt('category', handler=_add_parsers))
    common.parse_args(argv, conf=conf)
    func = getattr(conf.category, 'func', None)
    if func is None:
        print('usage: nova-manage {db,flavor,image_property,conductor} ...', file=sys.stderr)
        return 2
    try:
        return func(conf) or 0
    except exception.NovaException as exc:
        print('ERROR: %s' % exc.format_message(), file=sys.stderr)
        return 1

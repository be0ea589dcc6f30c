"""nova-manage conductor host-key create: a compute host's key, for the conductors and for it."""

import os
import sys

from nova.conductor import host_auth

OK, EXISTS, BAD_INPUT = 0, 2, 3


def _write_private(path, text, force):
    """Write ``text`` to ``path`` with mode 0600 (O_EXCL unless ``force``: no race to it)."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if force else os.O_EXCL)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, 'w') as handle:
        os.fchmod(fd, 0o600)   # an existing file (--force) keeps no wider mode
        handle.write(text + '\n')


def host_key_create(conf):
    args = conf.category
    directory = conf.conductor.host_keys_dir
    if not directory:
        print('[conductor] host_keys_dir is not set in the configuration', file=sys.stderr)
        return BAD_INPUT
    if not host_auth.valid_host_name(args.host_name):
        print('%r is not a host name' % args.host_name, file=sys.stderr)
        return BAD_INPUT
    os.makedirs(directory, mode=0o700, exist_ok=True)
    key = host_auth.new_key()
    stored = os.path.join(directory, args.host_name)
    for path in (args.key_file, stored):
        if path and os.path.exists(path) and not args.force:
            print('%s exists: use --force to replace the key' % path, file=sys.stderr)
            return EXISTS
    if args.key_file:
        _write_private(args.key_file, key, args.force)
    _write_private(stored, key, args.force)
    if args.key_file:
        print('Key of host %s written to %s and %s: copy %s to that host as its '
              '[conductor] host_key_file (mode 0600), and the file under %s to every '
              'conductor' % (args.host_name, stored, args.key_file, args.key_file, directory))
    else:
        print(key)
    return OK


def add_parsers(subparsers):
    conductor = subparsers.add_parser('conductor', help='Conductor').add_subparsers(
        dest='action')
    host_key = conductor.add_parser('host-key', help='Compute host keys').add_subparsers(
        dest='key_action')
    create = host_key.add_parser(
        'create', help="Create HOST's key in [conductor] host_keys_dir; print it, or write "
                       "it to --key-file for the compute host")
    # 'host' is taken on oslo.config's sub-command namespace ([DEFAULT] host).
    create.add_argument('host_name', metavar='HOST', help='[DEFAULT] host of the nova-compute')
    create.add_argument('--key-file', help="also write the key here, mode 0600 (the compute "
                                           "host's [conductor] host_key_file)")
    create.add_argument('--force', action='store_true', help='replace an existing key')
    create.set_defaults(func=host_key_create)

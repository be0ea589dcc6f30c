"""nova-manage db archive_deleted_rows and db purge: move and drop deleted instances."""

import argparse
import datetime
import sys
import time

from nova.db import archive

# Return codes, as upstream's nova-manage documents them.
ARCHIVE_NOTHING, ARCHIVE_SOME, ARCHIVE_BAD_MAX_ROWS, ARCHIVE_BAD_BEFORE = 0, 1, 2, 4
PURGE_DONE, PURGE_NO_ARGS, PURGE_BAD_BEFORE, PURGE_NOTHING = 0, 1, 2, 3


def parse_date(value):
    """A date or date-time as UTC without tzinfo (how the database stores them)."""
    from dateutil import parser
    parsed = parser.parse(value)
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return parsed


def _print_table(counts, heading):
    # Imported here: nova-aio imports this module (through nova.cmd.manage)
    # but never prints a table.
    import prettytable
    table = prettytable.PrettyTable(['Table', heading])
    table.align = 'l'
    for name in sorted(counts):
        table.add_row([name, counts[name]])
    print(table)


def archive_deleted_rows(conf, db):
    args = conf.category
    if args.max_rows < 1:
        print('Invalid input received: max_rows must be >= 1', file=sys.stderr)
        return ARCHIVE_BAD_MAX_ROWS
    before = None
    if args.before:
        try:
            before = parse_date(args.before)
        except (ValueError, OverflowError):
            print('Invalid value for --before: %s' % args.before, file=sys.stderr)
            return ARCHIVE_BAD_BEFORE
    total = {}
    while True:
        counts = archive.archive_deleted_rows(db.engine, max_rows=args.max_rows,
                                              before=before)
        for name, moved in counts.items():
            total[name] = total.get(name, 0) + moved
        if not args.until_complete or not counts:
            break
        if args.verbose:
            print('Archiving', '.' * sum(counts.values()), sep='')
        if args.sleep:
            time.sleep(args.sleep)
    if args.verbose:
        if total:
            _print_table(total, 'Number of Rows Archived')
        else:
            print('Nothing was archived.')
    if total and args.purge:
        if args.verbose:
            print('Rows were archived, running purge...')
        archive.purge_shadow_tables(db.engine)
    return ARCHIVE_SOME if total else ARCHIVE_NOTHING


def purge(conf, db):
    args = conf.category
    if not args.all and not args.before:
        print('Either --all or --before DATE is required', file=sys.stderr)
        return PURGE_NO_ARGS
    before = None
    if args.before:
        try:
            before = parse_date(args.before)
        except (ValueError, OverflowError):
            print('Invalid value for --before: %s' % args.before, file=sys.stderr)
            return PURGE_BAD_BEFORE
    counts = archive.purge_shadow_tables(db.engine, before=None if args.all else before)
    if args.verbose:
        for name in sorted(counts):
            print('Deleted %d rows from %s' % (counts[name], name))
    if not counts:
        if args.verbose:
            print('No rows were purged.')
        return PURGE_NOTHING
    return PURGE_DONE


def _seconds(value):
    seconds = int(value)
    if seconds < 0:
        raise argparse.ArgumentTypeError('must be 0 or more')
    return seconds


def _add_all_cells(parser):
    # Upstream's scripts pass --all-cells; this service has one database,
    # which is every cell there is, so the flag changes nothing.
    parser.add_argument('--all-cells', dest='all_cells', action='store_true',
                        help='Accepted as upstream: there is one database, every cell')


def add_parsers(db_sub, run):
    """Register the sub-commands on ``nova-manage db``; ``run(func)`` opens the DB."""
    arch = db_sub.add_parser(
        'archive_deleted_rows',
        help='Move deleted instances and their rows to the shadow tables')
    arch.add_argument('--max_rows', '--max-rows', dest='max_rows', type=int, default=1000,
                      help='Deleted instances to archive per batch (default 1000)')
    arch.add_argument('--before', help='Only instances deleted before this date')
    arch.add_argument('--verbose', action='store_true', help='Print what was archived')
    arch.add_argument('--until-complete', dest='until_complete', action='store_true',
                      help='Repeat batches until nothing is left to archive')
    arch.add_argument('--purge', action='store_true',
                      help='Purge the shadow tables after archiving')
    arch.add_argument('--sleep', type=_seconds, default=0,
                      help='Seconds to wait between batches with --until-complete')
    _add_all_cells(arch)
    arch.set_defaults(func=run(archive_deleted_rows))
    prg = db_sub.add_parser('purge', help='Delete rows from the shadow tables')
    prg.add_argument('--before', help='Only rows of instances deleted before this date')
    prg.add_argument('--all', action='store_true', help='Every archived row')
    prg.add_argument('--verbose', action='store_true', help='Print what was deleted')
    _add_all_cells(prg)
    prg.set_defaults(func=run(purge))

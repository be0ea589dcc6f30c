"""nova-status upgrade check: is this deployment ready to run (or upgrade to) this code?"""

import enum
import logging
import sys
import textwrap

import prettytable
from oslo_config import cfg

import nova.conf
from nova import version
from nova.cmd import common


class Code(enum.IntEnum):
    """Results and exit codes, as oslo.upgradecheck's."""
    SUCCESS = 0
    WARNING = 1
    FAILURE = 2


UNEXPECTED = 255


class Result:
    def __init__(self, code, details=None):
        self.code = code
        self.details = details


def check_schema(conf):
    """The database is reachable and its schema at this code's head revision."""
    logging.getLogger('alembic').setLevel(logging.WARNING)  # its INFO lines are noise here
    from alembic import script

    from nova.db import api as db_api
    from nova.db import migration
    heads = script.ScriptDirectory.from_config(migration._config()).get_heads()
    # No retry loop: an operator's check should answer now.
    db = db_api.Database(conf.database.connection, max_retries=0)
    try:
        current = migration.db_version(db.engine)
    except Exception as exc:  # noqa: BLE001 - any connection error is the answer.
        return Result(Code.FAILURE, 'Cannot read the database schema version: %s' %
                      str(exc).splitlines()[0])
    finally:
        db.dispose()
    if current is None:
        return Result(Code.FAILURE, 'The database has no schema. Run "nova-manage db sync".')
    if current not in heads:
        return Result(Code.FAILURE, 'The database schema is at %s; this code needs %s. Run '
                      '"nova-manage db sync".' % (current, ', '.join(heads)))
    return Result(Code.SUCCESS)


def check_service_versions(conf):
    """Conductor and compute services run this code's service version or the one before."""
    from nova.db import api as db_api
    db = db_api.Database(conf.database.connection, max_retries=0)
    try:
        services = [s for s in db.service_get_all()
                    if s['binary'] in ('nova-conductor', 'nova-compute')]
    except Exception as exc:  # noqa: BLE001
        return Result(Code.FAILURE, 'Cannot list the services: %s' % str(exc).splitlines()[0])
    finally:
        db.dispose()
    if not services:
        return Result(Code.SUCCESS, 'No conductor or compute service has registered yet.')
    current = version.SERVICE_VERSION
    old = ['%s on %s (version %s)' % (s['binary'], s['host'],
                                      'unknown' if s['version'] is None else s['version'])
           for s in services if s['version'] is None or s['version'] < current - 1]
    new = ['%s on %s (version %s)' % (s['binary'], s['host'], s['version'])
           for s in services if s['version'] is not None and s['version'] > current]
    problems = []
    if old:
        problems.append('Older than the previous release (%d); upgrade or delete them: %s.'
                        % (current - 1, '; '.join(old)))
    if new:
        problems.append('Newer than this code (%d); run the check from the newer release: '
                        '%s.' % (current, '; '.join(new)))
    if problems:
        return Result(Code.WARNING, ' '.join(problems))
    return Result(Code.SUCCESS, '%d service(s) at version %d or %d.' % (
        len(services), current - 1, current))


def check_policy_file(conf):
    """A JSON policy file is deprecated by oslo.policy: YAML keeps comments and defaults."""
    path = conf.oslo_policy.policy_file
    if path and path.endswith('.json'):
        return Result(Code.WARNING, '[oslo_policy] policy_file is %s; convert it with '
                      'oslopolicy-convert-json-to-yaml and point policy_file at the YAML '
                      'file.' % path)
    return Result(Code.SUCCESS)


def check_notifications(conf):
    """Notifications configured to go nowhere, or to a transport nobody can reach."""
    drivers = [d for d in conf.oslo_messaging_notifications.driver if d != 'noop']
    url = conf.oslo_messaging_notifications.transport_url or conf.transport_url or ''
    if drivers and url.startswith('fake:'):
        return Result(Code.WARNING, 'A notification driver is set but the transport is the '
                      "in-process one (%s): no consumer outside this process can hear the "
                      'notifications. Set [oslo_messaging_notifications] transport_url.' % url)
    return Result(Code.SUCCESS)


CHECKS = (
    ('Database schema', check_schema),
    ('Service versions', check_service_versions),
    ('Policy File JSON to YAML Migrated', check_policy_file),
    ('Notification transport', check_notifications),
)


def run_checks(conf, checks=CHECKS):
    """Print the results table; return the worst result code."""
    table = prettytable.PrettyTable(['Upgrade Check Results'])
    table.align = 'l'
    table.hrules = getattr(prettytable, 'HRuleStyle', prettytable).ALL
    worst = Code.SUCCESS
    for name, check in checks:
        result = check(conf)
        worst = max(worst, result.code)
        details = '\n  '.join(textwrap.wrap(result.details, 60)) if result.details \
            else 'None'
        table.add_row(['Check: %s\nResult: %s\nDetails: %s' % (
            name, result.code.name.capitalize(), details)])
    print(table)
    return int(worst)


def _add_parsers(subparsers):
    upgrade = subparsers.add_parser('upgrade', help='Upgrade readiness')
    upgrade.add_subparsers(dest='action').add_parser(
        'check', help='Run the upgrade checks').set_defaults(func=run_checks)


def main(argv=None):
    conf = nova.conf.CONF
    try:
        conf.register_cli_opt(cfg.SubCommandOpt('category', handler=_add_parsers))
    except cfg.ArgsAlreadyParsedError:
        pass
    try:
        common.parse_args(argv, conf=conf)
        func = getattr(conf.category, 'func', None)
        if func is None:
            print('usage: nova-status upgrade check', file=sys.stderr)
            return UNEXPECTED
        return func(conf)
    except SystemExit:
        raise
    except Exception as exc:  # noqa: BLE001 - the documented "unexpected error" code.
        print('Error: %s' % exc, file=sys.stderr)
        return UNEXPECTED


if __name__ == '__main__':
    sys.exit(main())

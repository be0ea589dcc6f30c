"""Throwaway PostgreSQL database of the split-services compatibility run (tools/run-compat.sh).

    compat_db.py create SERVER_URL NAME   create NAME; print its URL
    compat_db.py drop SERVER_URL NAME     drop NAME (ending its connections)
    compat_db.py has-compute DB_URL [N]   exit 0 once N (default 1) compute nodes are registered
"""

import re
import sys

import sqlalchemy as sa


def main(argv):
    command, url = argv[1], argv[2]
    if command == 'has-compute':
        engine = sa.create_engine(url)
        try:
            with engine.connect() as conn:
                count = conn.execute(sa.text('SELECT count(*) FROM compute_nodes')).scalar()
        except sa.exc.SQLAlchemyError:
            return 1
        finally:
            engine.dispose()
        return 0 if count >= (int(argv[3]) if len(argv) > 3 else 1) else 1
    name = argv[3]
    if not re.fullmatch(r'[a-z_][a-z0-9_]*', name):
        raise SystemExit('bad database name %r' % name)
    engine = sa.create_engine(url, isolation_level='AUTOCOMMIT')
    with engine.connect() as conn:
        if command == 'create':
            conn.execute(sa.text('CREATE DATABASE %s' % name))
            print(sa.engine.make_url(url).set(database=name).render_as_string(
                hide_password=False))
        elif command == 'drop':
            conn.execute(sa.text('SELECT pg_terminate_backend(pid) FROM pg_stat_activity '
                                 'WHERE datname = :n AND pid <> pg_backend_pid()'), {'n': name})
            conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % name))
        else:
            raise SystemExit('unknown command %r' % command)
    engine.dispose()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

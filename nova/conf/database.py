"""[database] options (oslo.db), defaulting to SQLite under state_path."""

from oslo_db import options as db_options


def register_opts(conf):
    db_options.set_defaults(conf, connection='sqlite:///$state_path/nova.sqlite')


def list_opts():
    return {'database': db_options.database_opts}

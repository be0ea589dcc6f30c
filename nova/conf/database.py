"""[database] options (oslo.db), defaulting to SQLite under state_path."""

from oslo_db import options as db_options


def register_opts(conf):
    db_options.set_defaults(conf, connection='sqlite:///$state_path/nova.sqlite')


# Read by nova.db.store (the engine); oslo.db's other options (slave and
# asyncio connections, the reconnect and db_*retry options of its API
# wrapper, backend) are not used here, so the sample leaves them out.
HONOURED = ('connection', 'max_retries', 'retry_interval', 'sqlite_synchronous',
            'mysql_sql_mode', 'mysql_wsrep_sync_wait', 'connection_recycle_time',
            'max_pool_size', 'max_overflow', 'pool_timeout', 'connection_debug',
            'connection_trace', 'connection_parameters')


def list_opts():
    return {'database': [opt for opt in db_options.database_opts if opt.name in HONOURED]}

"""Database access: plain-dict rows in, plain-dict rows out, one query per call."""

from nova.db import (
    aggregates,
    block_devices,
    claims,
    console_tokens,
    flavors,
    guest_metadata,
    host_scope,
    instance_actions,
    instances,
    keypairs,
    migrations_db,
    quotas,
    server_groups,
    services,
    store,
    usage,
)

# Names callers use from here.
INSTANCES = instances.INSTANCES
ENGINE_OPTIONS = store.ENGINE_OPTIONS
engine_options_from_conf = store.engine_options_from_conf
utcnow_minus = store.utcnow_minus
_now = store.now


class Database(instances.InstancesDB, block_devices.BlockDevicesDB, flavors.FlavorsDB,
               services.ServicesDB, claims.ClaimsDB, aggregates.AggregatesDB,
               keypairs.KeyPairsDB, quotas.QuotasDB, server_groups.ServerGroupsDB,
               usage.UsageDB, console_tokens.ConsoleTokensDB, migrations_db.MigrationsDB,
               instance_actions.InstanceActionsDB, host_scope.HostScopeDB,
               guest_metadata.GuestMetadataDB):
    """A handle on one database; every method is a single short transaction.

    Each base is one table group: a store.DBStore subclass and nothing else,
    so every group sees the same engine and none calls another's methods
    (nova/tests/unit/db/test_groups.py checks both). ``Database(url)`` and
    ``Database.from_conf(conf)`` build the engine once, in DBStore.
    """

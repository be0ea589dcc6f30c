"""Conductor: builds its operation families and serves them over RPC."""

from nova.conductor import (
    compute_db,
    manager_build,
    manager_evacuate,
    manager_live_migrate,
    manager_migrate,
    manager_shelve,
    reconcile,
)
from nova.conductor import scheduler as scheduler_mod


class ConductorManager:
    """The conductor's parts, each handed the database, the scheduler and the compute RPC
    API it uses. The RPC server serves ``endpoints`` (one object per family, all with
    ``rpc_target.TARGET``); ``lost_builds.fail_lost_builds`` is the periodic task.

    ``host_verifier`` checks the compute hosts' signatures (nova.conductor.host_auth);
    None trusts them.
    """

    def __init__(self, conf, db, compute_rpcapi, host_verifier=None):
        self.conf = conf
        self.db = db
        self.compute_rpcapi = compute_rpcapi
        self.scheduler = scheduler = scheduler_mod.Scheduler(conf, db)
        self.build = manager_build.BuildConductor(db, scheduler, compute_rpcapi)
        self.shelve = manager_shelve.ShelveConductor(db, scheduler, compute_rpcapi)
        self.migrate = manager_migrate.MigrateConductor(db, scheduler, compute_rpcapi)
        self.live_migrate = manager_live_migrate.LiveMigrateConductor(db, scheduler,
                                                                      compute_rpcapi)
        self.evacuate = manager_evacuate.EvacuateConductor(db, scheduler, compute_rpcapi)
        self.host_db = compute_db.ComputeDBConductor(
            compute_db.HostScopedDB(db, conf.default_availability_zone), host_verifier)
        self.lost_builds = reconcile.LostBuildsConductor(conf, db)
        # The families with RPC methods; each method name is on one of them only.
        self.endpoints = [self.build, self.shelve, self.migrate, self.live_migrate,
                          self.evacuate, self.host_db]

    def init_host(self):
        self.lost_builds.fail_at_start()

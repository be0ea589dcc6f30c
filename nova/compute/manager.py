"""Compute manager: runs on each hypervisor host and drives the virt driver."""

from nova.compute import (
    manager_admin,
    manager_build,
    manager_consoles,
    manager_core,
    manager_evacuate,
    manager_image,
    manager_interfaces,
    manager_lifecycle,
    manager_live_migrate,
    manager_migrate,
    manager_password,
    manager_power,
    manager_reconcile,
    manager_repair,
    manager_rescue,
    manager_resize,
    manager_resources,
    manager_shelve,
    manager_volume_snapshots,
    manager_volumes,
)


class ComputeManager:
    """Builds the operation families of one host and hands each what it uses.

    The RPC server serves ``endpoints`` (one object per family, all with
    ``manager_core.RPC_TARGET``); the service calls ``init_host`` and
    ``cleanup_host``; the periodic tasks are the families' own methods
    (``nova.wiring.compute_service``).

    ``network_api`` (nova.network.neutron.NetworkAPI) is the network
    service the build, interfaces, migration, live migration and shelve
    families call (ports allocated, bound, moved, deallocated); None: servers boot without
    networks. ``instance_events`` (nova.virt.instance_events.InstanceEvents)
    is the driver's: the events its guest starts wait for arrive there.
    """

    def __init__(self, conf, db, driver, host=None, image_api=None, volume_api=None,
                 compute_rpcapi=None, network_api=None, instance_events=None):
        self.conf = conf
        self.host = host or conf.host
        self.driver = driver
        # Every row this host reads or writes comes through the conductor.
        self.conductor_db = db
        self.image_api = image_api
        self.volume_api = volume_api
        # Casts to the other host of a migration.
        self.compute_rpcapi = compute_rpcapi
        self.network_api = network_api

        self.core = core = manager_core.ManagerCore(conf, db, driver, self.host)
        self.repair = manager_repair.RepairSteps(core, image_api)
        self.resources = manager_resources.ResourcesManager(core)
        self.volumes = manager_volumes.VolumesManager(core, volume_api)
        self.images = manager_image.ImageManager(core, image_api, self.volumes)
        self.power = manager_power.PowerManager(core)
        self.rescue = manager_rescue.RescueManager(core)
        self.consoles = manager_consoles.ConsolesManager(driver)
        self.password = manager_password.PasswordManager(core)
        self.volume_snapshots = manager_volume_snapshots.VolumeSnapshotsManager(
            core, volume_api)
        self.migrate = manager_migrate.MigrateManager(
            core, self.volumes, volume_api, compute_rpcapi, self.resources,
            network_api=network_api)
        self.evacuate = manager_evacuate.EvacuateManager(core, self.volumes, self.migrate,
                                                         network_api=network_api)
        self.resize = manager_resize.ResizeManager(core, self.migrate, compute_rpcapi)
        self.live_migrate = manager_live_migrate.LiveMigrateManager(
            core, self.volumes, volume_api, compute_rpcapi, network_api=network_api)
        self.shelve = manager_shelve.ShelveManager(core, self.repair, self.images,
                                                   self.volumes, image_api, volume_api,
                                                   network_api=network_api)
        self.build = manager_build.BuildManager(core, self.volumes, self.resize,
                                                network_api=network_api)
        self.interfaces = manager_interfaces.InterfacesManager(core, network_api,
                                                               instance_events)
        self.admin = manager_admin.AdminManager(core, image_api, self.images, self.build,
                                                self.interfaces)
        self.lifecycle = manager_lifecycle.LifecycleManager(core)
        self.reconcile = manager_reconcile.ReconcileManager(
            core, self.repair, volume_api, self.build, self.volumes, self.resize, self.shelve,
            self.live_migrate)
        # The families with RPC methods; each method name is on one of them only.
        self.endpoints = [self.build, self.power, self.images, self.volumes, self.rescue,
                          self.admin, self.consoles, self.password, self.resize,
                          self.migrate, self.live_migrate, self.evacuate, self.shelve,
                          self.volume_snapshots, self.resources, self.interfaces]

    # -- start-up and stop -------------------------------------------------
    def init_host(self):
        self.driver.init_host(self.host)
        # Every row this host reads or writes comes through the conductor.
        self.conductor_db.wait_until_ready()
        # Listen before the start-up sync, so no change falls in between.
        self.lifecycle.start_lifecycle_events()
        self.resources.update_available_resource()
        self._reconcile_on_start()
        # What servers evacuated while this host was down left here goes.
        self.evacuate.cleanup_evacuated(startup=True)
        self.resources.recount_usage()

    def _reconcile_on_start(self):
        """Finish or roll back what a crash interrupted (manager_reconcile)."""
        self.reconcile.reconcile_instances(startup=True)
        self.lifecycle.sync_power_states()

    def cleanup_host(self):
        # The service stops: writes still waiting for the conductor are dropped
        # (the start-up reconciliation repairs what they would have written).
        self.core.retry.stop()
        self.lifecycle.stop_lifecycle_events()

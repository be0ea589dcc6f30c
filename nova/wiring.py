"""Build each service's object graph from configuration (no hidden globals)."""

from nova import policy
from nova.compute import api as compute_api_mod
from nova.compute import rpcapi as compute_rpcapi
from nova.conductor import rpcapi as conductor_rpcapi
from nova.db import api as db_api
from nova.image import glance
from nova.volume import cinder


def database(conf):
    return db_api.Database.from_conf(conf)


def compute_api(conf, db):
    policy.init(conf)
    return compute_api_mod.API(conf, db, glance.GlanceClient(conf),
                               conductor_rpcapi.ConductorAPI(conf),
                               compute_rpcapi.ComputeAPI(conf),
                               volume_api=cinder.CinderClient(conf))


def api_app(conf, db):
    from nova.api import deploy
    return deploy.build_app(conf, compute_api(conf, db))


def conductor_service(conf, db):
    from nova import service
    from nova.conductor import manager
    mgr = manager.ConductorManager(conf, db, compute_rpcapi.ComputeAPI(conf))
    periodic = [(mgr.fail_lost_builds, conf.reconcile_interval, 'lost-builds')]
    return service.Service(conf, db, 'nova-conductor', conductor_rpcapi.TOPIC, conf.host, mgr,
                           periodic=periodic)


def _resize_shelve_interval(conf):
    """Poll at most as rarely as the shortest of the windows that are on."""
    if conf.shelved_poll_interval <= 0:
        return 0
    windows = [w for w in (conf.resize_confirm_window, conf.shelved_offload_time) if w > 0]
    return min([conf.shelved_poll_interval] + windows)


def compute_service(conf, db):
    from nova import service
    from nova.compute import manager
    from nova.virt.libvirt import driver as libvirt_driver
    image_api = glance.GlanceClient(conf)
    driver = libvirt_driver.LibvirtDriver(conf, image_api.download)
    mgr = manager.ComputeManager(conf, db, driver, host=conf.host, image_api=image_api,
                                 volume_api=cinder.CinderClient(conf))
    periodic = [(mgr.sync_power_states, conf.sync_power_state_interval, 'power-sync'),
                (mgr.update_available_resource, 60, 'resources'),
                (mgr.reconcile_periodic, conf.reconcile_interval, 'reconcile'),
                (mgr.cleanup_running_deleted_instances,
                 conf.running_deleted_instance_poll_interval, 'running-deleted'),
                (mgr.poll_rescued_instances, min(60, conf.rescue_timeout),
                 'rescue-timeout'),
                # The interval doubles as the polling period, as upstream.
                (mgr.reclaim_queued_deletes, conf.reclaim_instance_interval, 'reclaim'),
                (mgr.poll_unconfirmed_resizes, _resize_shelve_interval(conf), 'resize-confirm'),
                (mgr.offload_shelved_instances, _resize_shelve_interval(conf),
                 'shelve-offload')]
    return service.Service(conf, db, 'nova-compute', compute_rpcapi.TOPIC, conf.host, mgr,
                           periodic=periodic)

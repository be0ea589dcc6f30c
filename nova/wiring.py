"""Build each service's object graph from configuration (no hidden globals)."""

from nova.compute import conductor_db
from nova.compute import rpcapi as compute_rpcapi
from nova.conductor import rpcapi as conductor_rpcapi
from nova.image import glance
from nova.volume import cinder


def database(conf):
    # Imported here: nova-compute holds no database credentials and must not
    # even load the database layer.
    from nova.db import api as db_api
    return db_api.Database.from_conf(conf)


def api_network(conf):
    """The API's NetworkAPI when a Networking service is configured, else None."""
    from nova.network import neutron
    if not neutron.configured(conf):
        return None
    return neutron.NetworkAPI(conf)


def compute_api(conf, db):
    from nova import policy
    from nova.compute import api as compute_api_mod
    policy.init(conf)
    return compute_api_mod.API(conf, db, glance.GlanceClient(conf),
                               conductor_rpcapi.ConductorAPI(conf),
                               compute_rpcapi.ComputeAPI(conf),
                               volume_api=cinder.CinderClient(conf),
                               network_api=api_network(conf))


def api_app(conf, db):
    from nova.api import deploy
    return deploy.build_app(conf, compute_api(conf, db))


def conductor_service(conf, db):
    from nova import service
    from nova.conductor import host_auth, manager
    mgr = manager.ConductorManager(conf, db, compute_rpcapi.ComputeAPI(conf),
                                   host_verifier=host_auth.verifier_from_conf(conf))
    periodic = [(mgr.lost_builds.fail_lost_builds, conf.reconcile_interval, 'lost-builds')]
    return service.Service(conf, db, 'nova-conductor', conductor_rpcapi.TOPIC, conf.host, mgr,
                           mgr.endpoints, periodic=periodic)


def _resize_shelve_interval(conf):
    """Poll at most as rarely as the shortest of the windows that are on."""
    if conf.shelved_poll_interval <= 0:
        return 0
    windows = [w for w in (conf.resize_confirm_window, conf.shelved_offload_time) if w > 0]
    return min([conf.shelved_poll_interval] + windows)


def compute_db(conf, db=None, host=None):
    """The compute manager's database handle: conductor calls, never a connection.

    Split (``db`` None): an RPC call to nova-conductor per operation. In the
    all-in-one the conductor lives in the same process, so the calls go
    straight into the same host-scoped code (nova/conductor/compute_db.py),
    the same checks without the serialisation and queue round trip.
    """
    if db is None:
        capi = conductor_rpcapi.ConductorAPI(conf)
        if not capi.can_serve_compute_db():
            from nova import exception
            raise exception.RPCVersionPinned(
                what='nova-compute', topic=conductor_rpcapi.TOPIC,
                needed=conductor_rpcapi.COMPUTE_DB_VERSION, pin=capi.pin)
        capi.load_host_key()   # an unreadable key file stops nova-compute now
        return conductor_db.ConductorDB(conf.host, capi.compute_db, ping=capi.ping)
    from nova.conductor import compute_db as scoped
    return conductor_db.ConductorDB(host or conf.host, scoped.HostScopedDB(
        db, conf.default_availability_zone).dispatch)


def compute_network_api(conf):
    """The compute host's NetworkAPI, or None when no Networking service is
    configured (servers then boot without ports)."""
    from nova.network import neutron
    if not neutron.configured(conf):
        return None
    return neutron.NetworkAPI(conf)


def compute_service(conf, db=None, host=None, instances_path=None, placement_lock=None,
                    connection_uri=None, tap_namespace=None):
    """nova-compute; ``db`` only in the all-in-one, whose conductor shares the process.

    ``host`` and ``instances_path`` (else [DEFAULT]'s) name one of the all-in-one's
    extra compute hosts; ``placement_lock`` is shared by the drivers of one libvirtd;
    ``tap_namespace``: where taps of vif_type tap ports go (else [libvirt]'s).
    """
    from nova import service
    from nova.compute import manager
    from nova.virt import instance_events
    from nova.virt.libvirt import driver as libvirt_driver
    image_api = glance.GlanceClient(conf)
    host = host or conf.host
    # Delivered by the manager (os-server-external-events), awaited by the driver.
    events = instance_events.InstanceEvents()
    driver = libvirt_driver.LibvirtDriver(
        conf, image_api.download, image_authorizer=image_api.show,
        instances_path=instances_path,
        nodename=None if host == conf.host else host, placement_lock=placement_lock,
        connection_uri=connection_uri, instance_events=events, tap_namespace=tap_namespace)
    db = compute_db(conf, db, host=host)
    mgr = manager.ComputeManager(conf, db, driver, host=host, image_api=image_api,
                                 volume_api=cinder.CinderClient(conf),
                                 compute_rpcapi=compute_rpcapi.ComputeAPI(conf),
                                 network_api=compute_network_api(conf),
                                 instance_events=events)
    periodic = [(mgr.lifecycle.sync_power_states, conf.sync_power_state_interval,
                 'power-sync'),
                (mgr.resources.update_available_resource, 60, 'resources'),
                (mgr.reconcile.reconcile_periodic, conf.reconcile_interval, 'reconcile'),
                (mgr.reconcile.reconcile_unreported, conf.lost_report_interval,
                 'lost-reports'),
                (mgr.evacuate.cleanup_evacuated_periodic, conf.reconcile_interval,
                 'evacuated'),
                (mgr.lifecycle.cleanup_running_deleted_instances,
                 conf.running_deleted_instance_poll_interval, 'running-deleted'),
                (mgr.rescue.poll_rescued_instances, min(60, conf.rescue_timeout),
                 'rescue-timeout'),
                # The interval doubles as the polling period, as upstream.
                (mgr.admin.reclaim_queued_deletes, conf.reclaim_instance_interval, 'reclaim'),
                (mgr.resize.poll_unconfirmed_resizes, _resize_shelve_interval(conf),
                 'resize-confirm'),
                (mgr.shelve.offload_shelved_instances, _resize_shelve_interval(conf),
                 'shelve-offload'),
                (mgr.interfaces.heal_info_cache,
                 mgr.network_api.healer.interval if mgr.network_api else 0, 'heal-cache')]
    return service.Service(conf, db, 'nova-compute', compute_rpcapi.TOPIC, host, mgr,
                           mgr.endpoints, periodic=periodic)


def metadata_app(conf, db):
    """The metadata API: requesters checked as [neutron] says, content cached as [api] says.

    With a Networking service it also asks Neutron for the port behind an
    X-Metadata-Provider and for a server's security groups.
    """
    from nova.api.metadata import handler, requester
    from nova.metadata import options, source
    from nova.network import neutron
    providers = groups = None
    if neutron.configured(conf):
        from nova.api.metadata import neutron_lookups
        from nova.network import client as neutron_client
        client = neutron_client.NeutronClient(conf)
        providers = neutron_lookups.ProviderPorts(client)
        groups = neutron_lookups.SecurityGroupNames(client)
    requesters = requester.RequesterCheck(conf.neutron.service_metadata_proxy,
                                          conf.neutron.metadata_proxy_shared_secret,
                                          use_forwarded_for=conf.api.use_forwarded_for,
                                          provider_resolver=providers)
    content = source.MetadataSource(db, options.ContentOptions.from_conf(conf),
                                    source.ExpiringCache(conf.api.metadata_cache_expiration),
                                    security_groups=groups)
    return handler.build_app(requesters, content)

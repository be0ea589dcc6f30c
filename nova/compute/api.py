"""The compute API: the business rules every caller of the REST API goes through, by family."""

from nova import quota as quota_mod
from nova.compute import (
    api_actions,
    api_admin,
    api_admin_actions,
    api_aggregates,
    api_boot_image,
    api_consoles,
    api_core,
    api_delete,
    api_evacuate,
    api_events,
    api_flavors,
    api_interfaces,
    api_keypairs,
    api_live_migrate,
    api_network_proxy,
    api_networking,
    api_password,
    api_proxy,
    api_rebuild,
    api_records,
    api_rescue,
    api_resize,
    api_server_groups,
    api_servers,
    api_shelve,
    api_usage,
    api_volume_snapshots,
    api_volumes,
)


class API:
    """The composition root: each family built with what it uses, exposed as an attribute.

    Callers use the family (``compute_api.rescue.rescue(...)``). Every family
    validates requests fully before anything is written, then hands off by RPC.
    """

    def __init__(self, conf, db, image_api, conductor_api, compute_rpcapi, volume_api=None,
                 network_api=None):
        # Quota sets, limits and the checks other resources call.
        self.quota = quota_mod.QuotaEngine(conf, db)
        # Parts the action families share.
        self.core = api_core.CoreAPI(db)
        self.boot_images = api_boot_image.BootImageAPI(image_api)
        self.flavors = api_flavors.FlavorsAPI(db)
        self.keypairs = api_keypairs.KeypairsAPI(db, self.quota)
        self.server_groups = api_server_groups.ServerGroupsAPI(db, self.quota)
        # Services, hypervisors, hosts and the availability zones they are in.
        self.admin = api_admin.AdminAPI(conf, db, compute_rpcapi)
        self.aggregates = api_aggregates.AggregatesAPI(db)
        self.usage = api_usage.UsageAPI(db)
        self.proxy = api_proxy.ProxyAPI(image_api, volume_api)
        self.records = api_records.RecordsAPI(db)
        self.events = api_events.ExternalEventsAPI(db, compute_rpcapi)
        self.volume_snapshots = api_volume_snapshots.VolumeSnapshotsAPI(db, compute_rpcapi)
        self.consoles = api_consoles.ConsolesAPI(conf, db, compute_rpcapi)
        self.password = api_password.PasswordAPI(db, compute_rpcapi)
        # Networking (network_api None: no network service, servers have no ports).
        self.networking = api_networking.ServerNetworksAPI(network_api, self.events)
        self.interfaces = api_interfaces.InterfacesAPI(db, network_api, compute_rpcapi)
        self.network_proxy = api_network_proxy.NetworkProxyAPI(network_api)
        # Servers and the actions on them.
        self.servers = api_servers.ServersAPI(
            conf, db, self.quota, conductor_api, volume_api, self.boot_images, self.flavors,
            self.keypairs, self.server_groups, zones=self.admin, networking=self.networking)
        self.actions = api_actions.ServerActionsAPI(db, image_api, compute_rpcapi, self.core,
                                                   volume_api)
        self.admin_actions = api_admin_actions.AdminActionsAPI(db, compute_rpcapi, self.core,
                                                               self.actions)
        self.volumes = api_volumes.VolumeAttachmentsAPI(db, volume_api, compute_rpcapi)
        self.rebuild = api_rebuild.RebuildAPI(
            conf, db, self.quota, compute_rpcapi, volume_api, self.core, self.boot_images,
            self.keypairs, self.volumes)
        self.rescue = api_rescue.RescueAPI(conf, db, image_api, compute_rpcapi, self.core,
                                           self.boot_images)
        self.resize = api_resize.ResizeAPI(conf, db, self.quota, conductor_api, compute_rpcapi,
                                           self.core, self.flavors)
        self.shelve = api_shelve.ShelveAPI(db, image_api, compute_rpcapi, conductor_api,
                                           self.core, zones=self.admin)
        self.live_migration = api_live_migrate.LiveMigrateAPI(db, conductor_api,
                                                              compute_rpcapi)
        self.evacuation = api_evacuate.EvacuateAPI(db, conductor_api, compute_rpcapi,
                                                   self.core, self.admin)
        self.deletion = api_delete.DeleteAPI(conf, db, compute_rpcapi, self.core, self.shelve,
                                             network_api)

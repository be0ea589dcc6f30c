"""Client side of the conductor RPC API."""

import logging

import oslo_messaging as messaging

from nova import exception, rpc
from nova.conductor import host_auth, wire
from nova.image import sysmeta

LOG = logging.getLogger(__name__)

TOPIC = 'conductor'
# The first version that serves the compute hosts' database access.
COMPUTE_DB_VERSION = '1.2'
# The first version whose compute_db takes the host's signature.
SIGNED_COMPUTE_DB_VERSION = '1.4'
# The first version whose build_instances takes no image.
BUILD_WITHOUT_IMAGE_VERSION = '1.6'


class ConductorAPI:
    """Version history:

    * 1.0 - Initial version: build_instances.
    * 1.1 - unshelve_instance (schedule a shelved-offloaded server again).
    * 1.2 - compute_db(host, operation, args, kwargs): every database read and
            write of nova-compute, one of the operations named in
            ``nova.compute.conductor_db.OPERATIONS`` (instance_get/_get_all/
            _update/_destroy, migration_get/_update/_get_by_instance_and_status,
            migrations_finished_before, bdm_get_by_instance/_create/_update/
            _destroy, action_start, actions_get, event_start/_finish,
            events_get, fault_create, compute_node_update/_claim/_release/
            _set_usage, service_heartbeat) or ``ping``; the conductor checks each
            against the calling host (``nova.conductor.compute_db``). Rows
            travel as plain dicts, datetimes tagged (``nova.conductor.wire``).
    * 1.3 - compute_db(..., signature=None): the calling host's HMAC over the
            call (``nova.conductor.host_auth``), checked when the conductor
            has host keys ([conductor] host_keys_dir).
    * 1.4 - migrate_server (pick and claim a destination for a cold migration
            or a resize to another host, then cast resize_instance to the source).
    * 1.5 - live_migrate_instance (pick, claim and check a destination for a
            live migration, then cast live_migration to the source; a call
            answers the error of a refused attempt, for requests before 2.34).
    * 1.6 - build_instances(instances, request_spec): no ``image``; the
            conductor filters hosts on the image properties in the instances'
            system metadata. A 1.6 conductor still takes a 1.0 message with
            ``image`` (and does not read it).

    ``[upgrade_levels] conductor`` caps the version sent: a client pinned
    below 1.2 never sends compute_db (it raises RPCVersionPinned instead);
    pinned to 1.2 it sends the calls unsigned, as a 1.2 conductor expects;
    pinned below 1.6 it sends build_instances with the ``image`` (rebuilt from
    the instances' system metadata) that older conductors schedule on.
    """

    VERSION = '1.7'

    def __init__(self, conf):
        self.pin = conf.upgrade_levels.conductor
        self.client = rpc.get_client(conf, TOPIC, self.VERSION, version_cap=self.pin)
        self._key_file = conf.conductor.host_key_file
        self._key = None

    def build_instances(self, context, instances, request_spec):
        if self.client.can_send_version(BUILD_WITHOUT_IMAGE_VERSION):
            cctxt = self.client.prepare(version=BUILD_WITHOUT_IMAGE_VERSION)
            cctxt.cast(context, 'build_instances', instances=instances,
                       request_spec=request_spec)
            return
        # A conductor before 1.6 needs the image, and filters hosts on its
        # properties: those the instances were written with (one request, one image).
        image = sysmeta.sysmeta_to_image(instances[0].system_metadata) if instances else {}
        cctxt = self.client.prepare(version='1.0')
        cctxt.cast(context, 'build_instances', instances=instances, image=image,
                   request_spec=request_spec)

    def unshelve_instance(self, context, instance, request_spec):
        cctxt = self.client.prepare(version='1.1')
        cctxt.cast(context, 'unshelve_instance', instance=instance,
                   request_spec=request_spec)

    def migrate_server(self, context, instance, migration_id, request_spec):
        cctxt = self.client.prepare(version='1.4')
        cctxt.cast(context, 'migrate_server', instance=instance, migration_id=migration_id,
                   request_spec=request_spec)

    def evacuate_server(self, context, instance, migration_id, request_spec):
        cctxt = self.client.prepare(version='1.7')
        cctxt.cast(context, 'evacuate_server', instance=instance, migration_id=migration_id,
                   request_spec=request_spec)

    def live_migrate_instance(self, context, instance, migration_id, host, wait=False):
        """Cast; or (``wait``) call and return the error message of a refused attempt."""
        cctxt = self.client.prepare(version='1.5', timeout=180 if wait else None)
        method = cctxt.call if wait else cctxt.cast
        return method(context, 'live_migrate_instance', instance=instance,
                      migration_id=migration_id, host=host)

    def can_serve_compute_db(self):
        return self.client.can_send_version(COMPUTE_DB_VERSION)

    def compute_db(self, context, host, method, args, kwargs, timeout=None):
        """One database operation of compute ``host``, run and checked by a conductor."""
        if not self.can_serve_compute_db():
            raise exception.RPCVersionPinned(what='nova-compute', topic=TOPIC,
                                             needed=COMPUTE_DB_VERSION, pin=self.pin)
        args, kwargs = wire.encode(args), wire.encode(kwargs)
        extra, version = {}, COMPUTE_DB_VERSION
        key = self._host_key()
        if key is not None:
            if self.client.can_send_version(SIGNED_COMPUTE_DB_VERSION):
                version = SIGNED_COMPUTE_DB_VERSION
                extra['signature'] = host_auth.sign(key, host, method, args, kwargs)
            elif not self._warned_unsigned:
                ConductorAPI._warned_unsigned = True
                LOG.warning('[conductor] host_key_file is set, but [upgrade_levels] '
                            'conductor pins RPC to %s: database calls go unsigned until '
                            'the pin is %s or higher', self.pin, SIGNED_COMPUTE_DB_VERSION)
        cctxt = self.client.prepare(version=version, timeout=timeout)
        result = cctxt.call(context, 'compute_db', host=host, operation=method,
                            args=args, kwargs=kwargs, **extra)
        return wire.decode(result)

    _warned_unsigned = False

    def _host_key(self):
        """This host's key ([conductor] host_key_file), read once; None if not configured.

        Only nova-compute makes these calls (and reads it at start through
        ``wiring.compute_db``): other services never open the file.
        """
        if self._key is None and self._key_file:
            self._key = host_auth.load_compute_key(self._key_file)
        return self._key

    def load_host_key(self):
        self._host_key()

    def ping(self, context, host):
        """True once a conductor answers (a short call, retried by the caller)."""
        return self.compute_db(context, host, 'ping', [], {}, timeout=3)


def target():
    return messaging.Target(topic=TOPIC, version=ConductorAPI.VERSION)

"""Client side of the conductor RPC API."""

import oslo_messaging as messaging

from nova import exception, rpc
from nova.conductor import wire

TOPIC = 'conductor'
# The first version that serves the compute hosts' database access.
COMPUTE_DB_VERSION = '1.2'


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

    ``[upgrade_levels] conductor`` caps the version sent: a client pinned
    below 1.2 never sends compute_db (it raises RPCVersionPinned instead).
    """

    VERSION = '1.2'

    def __init__(self, conf):
        self.pin = conf.upgrade_levels.conductor
        self.client = rpc.get_client(conf, TOPIC, self.VERSION, version_cap=self.pin)

    def build_instances(self, context, instances, image, request_spec):
        cctxt = self.client.prepare(version='1.0')
        cctxt.cast(context, 'build_instances', instances=instances, image=image,
                   request_spec=request_spec)

    def unshelve_instance(self, context, instance, request_spec):
        cctxt = self.client.prepare(version='1.1')
        cctxt.cast(context, 'unshelve_instance', instance=instance,
                   request_spec=request_spec)

    def can_serve_compute_db(self):
        return self.client.can_send_version(COMPUTE_DB_VERSION)

    def compute_db(self, context, host, method, args, kwargs, timeout=None):
        """One database operation of compute ``host``, run and checked by a conductor."""
        if not self.can_serve_compute_db():
            raise exception.RPCVersionPinned(what='nova-compute', topic=TOPIC,
                                             needed=COMPUTE_DB_VERSION, pin=self.pin)
        cctxt = self.client.prepare(version=COMPUTE_DB_VERSION, timeout=timeout)
        result = cctxt.call(context, 'compute_db', host=host, operation=method,
                            args=wire.encode(args), kwargs=wire.encode(kwargs))
        return wire.decode(result)

    def ping(self, context, host):
        """True once a conductor answers (a short call, retried by the caller)."""
        return self.compute_db(context, host, 'ping', [], {}, timeout=3)


def target():
    return messaging.Target(topic=TOPIC, version=ConductorAPI.VERSION)

"""Service rows (heartbeats, administration) and the capacity each compute node reports."""

import sqlalchemy as sa
from oslo_utils import uuidutils

from nova import exception
from nova.db import models, store
from nova.version import SERVICE_VERSION

SERVICES = models.ServiceRecord.__table__
NODES = models.ComputeNodeRecord.__table__
AGG_HOSTS = models.AggregateHostRecord.__table__


class ServicesDB(store.DBStore):
    """The services and compute_nodes tables (usage counters: nova.db.claims)."""

    def service_heartbeat(self, host, binary, topic=None, version=None):
        """``version``: the reporting service's code (nova-compute's, via the conductor)."""
        now = store.now()
        version = SERVICE_VERSION if version is None else version
        with self.writer.begin() as conn:
            count = conn.execute(SERVICES.update().where(
                SERVICES.c.host == host, SERVICES.c.binary == binary).values(
                last_seen_up=now, updated_at=now, version=version)).rowcount
            if not count:
                self._insert(conn, SERVICES, dict(host=host, binary=binary, topic=topic,
                                                  last_seen_up=now, version=version,
                                                  uuid=uuidutils.generate_uuid()))
            return self._one(conn, SERVICES, SERVICES.c.host == host,
                             SERVICES.c.binary == binary)

    def service_get_all(self, binary=None):
        query = sa.select(SERVICES).order_by(SERVICES.c.id)
        if binary:
            query = query.where(SERVICES.c.binary == binary)
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(query)]

    def service_update(self, host, binary, values):
        with self.writer.begin() as conn:
            conn.execute(SERVICES.update().where(SERVICES.c.host == host,
                                                 SERVICES.c.binary == binary).values(**values))

    def service_get(self, service_id):
        """A service by integer id or uuid."""
        col = SERVICES.c.uuid if uuidutils.is_uuid_like(str(service_id)) else SERVICES.c.id
        if col is SERVICES.c.id and not str(service_id).isdigit():
            raise exception.ServiceNotFound(service_id=service_id)
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(SERVICES).where(col == service_id)).first()
        if row is None:
            raise exception.ServiceNotFound(service_id=service_id)
        return dict(row._mapping)

    def service_update_by_id(self, service_id, values):
        with self.writer.begin() as conn:
            conn.execute(SERVICES.update().where(SERVICES.c.id == service_id)
                         .values(updated_at=store.now(), **values))
            return dict(conn.execute(sa.select(SERVICES).where(
                SERVICES.c.id == service_id)).first()._mapping)

    def service_destroy(self, service_id):
        """Drop a service; a compute service takes its node and aggregate membership."""
        with self.writer.begin() as conn:
            row = conn.execute(sa.select(SERVICES).where(SERVICES.c.id == service_id)).first()
            if row is None:
                raise exception.ServiceNotFound(service_id=service_id)
            if row.binary == 'nova-compute':
                conn.execute(NODES.delete().where(NODES.c.host == row.host))
                conn.execute(AGG_HOSTS.delete().where(AGG_HOSTS.c.host == row.host))
            conn.execute(SERVICES.delete().where(SERVICES.c.id == service_id))

    def compute_node_update(self, host, resources):
        """Record a host's capacity; usage columns belong to the claims."""
        capacity = {k: resources[k] for k in (
            'hypervisor_hostname', 'hypervisor_type', 'hypervisor_version', 'vcpus',
            'memory_mb', 'local_gb', 'cpu_allocation_ratio', 'ram_allocation_ratio',
            'disk_allocation_ratio', 'reserved_memory_mb', 'reserved_disk_mb',
            'capabilities') if k in resources}
        capacity = store.encode_values(NODES, capacity)
        capacity['updated_at'] = store.now()
        with self.writer.begin() as conn:
            count = conn.execute(NODES.update().where(NODES.c.host == host)
                                 .values(**capacity)).rowcount
            if not count:
                self._insert(conn, NODES, dict(capacity, host=host,
                                               uuid=uuidutils.generate_uuid()))
            return self._one_by(conn, NODES, host=host)

    def compute_node_get(self, host):
        with self.engine.connect() as conn:
            return self._one_by(conn, NODES, host=host)

    def compute_nodes_get_all(self):
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(NODES).order_by(NODES.c.id))
            return [store.decode_row(NODES, r) for r in rows]

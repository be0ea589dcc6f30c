"""Claims on compute nodes: room checks, atomic claim and release, usage recounts."""

import sqlalchemy as sa

from nova import exception
from nova.db import models, store

INSTANCES = models.InstanceRecord.__table__
NODES = models.ComputeNodeRecord.__table__
BDMS = models.BlockDeviceMappingRecord.__table__
SERVICES = models.ServiceRecord.__table__


def _room_clauses(vcpus, memory_mb, disk_gb):
    return (
        NODES.c.vcpus_used + vcpus <= NODES.c.vcpus * NODES.c.cpu_allocation_ratio,
        NODES.c.memory_mb_used + memory_mb
        <= (NODES.c.memory_mb - NODES.c.reserved_memory_mb) * NODES.c.ram_allocation_ratio,
        NODES.c.local_gb_used + disk_gb
        <= (NODES.c.local_gb - NODES.c.reserved_disk_mb / 1024) * NODES.c.disk_allocation_ratio,
    )


class ClaimsDB(store.DBStore):
    """The usage columns of compute_nodes, and deletes that race a claim."""

    def compute_nodes_with_room(self, vcpus, memory_mb, disk_gb, up_since):
        """Enabled, live hosts whose free capacity covers the request."""
        query = sa.select(NODES).join(SERVICES, sa.and_(
            SERVICES.c.host == NODES.c.host, SERVICES.c.binary == 'nova-compute')).where(
            SERVICES.c.disabled == sa.false(), SERVICES.c.forced_down == sa.false(),
            SERVICES.c.last_seen_up >= up_since, *_room_clauses(vcpus, memory_mb, disk_gb))
        with self.engine.connect() as conn:
            return [store.decode_row(NODES, r) for r in conn.execute(query)]

    def compute_node_claim(self, host, vcpus, memory_mb, disk_gb):
        """Atomically add usage if it still fits; False when another claim won."""
        with self.writer.begin() as conn:
            return bool(conn.execute(NODES.update().where(
                NODES.c.host == host, *_room_clauses(vcpus, memory_mb, disk_gb)).values(
                vcpus_used=NODES.c.vcpus_used + vcpus,
                memory_mb_used=NODES.c.memory_mb_used + memory_mb,
                local_gb_used=NODES.c.local_gb_used + disk_gb)).rowcount)

    def compute_node_release(self, host, vcpus, memory_mb, disk_gb):
        with self.writer.begin() as conn:
            conn.execute(NODES.update().where(NODES.c.host == host).values(
                vcpus_used=self._floor0(NODES.c.vcpus_used - vcpus),
                memory_mb_used=self._floor0(NODES.c.memory_mb_used - memory_mb),
                local_gb_used=self._floor0(NODES.c.local_gb_used - disk_gb)))

    def _floor0(self, expr):
        fn = sa.func.max if self.engine.dialect.name == 'sqlite' else sa.func.greatest
        return fn(expr, 0)

    def compute_node_set_usage(self, host, vcpus, memory_mb, disk_gb):
        """Replace a host's usage counters (after recounting its instances)."""
        with self.writer.begin() as conn:
            conn.execute(NODES.update().where(NODES.c.host == host).values(
                vcpus_used=vcpus, memory_mb_used=memory_mb, local_gb_used=disk_gb))

    def instance_destroy_unscheduled(self, uuid):
        """Soft-delete an instance only while no host holds a claim for it.

        True when deleted; False when a host was chosen meanwhile (the caller
        must then delete through that host, which releases the claim).
        """
        now = store.now()
        with self.writer.begin() as conn:
            row = conn.execute(sa.select(INSTANCES.c.id, INSTANCES.c.host).where(
                INSTANCES.c.uuid == uuid, INSTANCES.c.deleted == 0)).first()
            if row is None:
                raise exception.InstanceNotFound(instance_id=uuid)
            count = conn.execute(INSTANCES.update().where(
                INSTANCES.c.uuid == uuid, INSTANCES.c.deleted == 0,
                INSTANCES.c.host.is_(None)).values(
                deleted=row.id, deleted_at=now, updated_at=now, terminated_at=now,
                vm_state='deleted', task_state=None)).rowcount
            if count:
                conn.execute(BDMS.delete().where(BDMS.c.instance_uuid == uuid))
            return bool(count)

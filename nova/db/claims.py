"""Claim bookkeeping: host usage recomputed from instances, unscheduled deletes as one CAS."""

import sqlalchemy as sa
from oslo_utils import timeutils

from nova import exception
from nova.db import models

_T = {t.name: t for t in models.BASE.metadata.sorted_tables}
INSTANCES = _T['instances']
NODES = _T['compute_nodes']
BDMS = _T['block_device_mapping']


class ClaimsMixin:
    """Mixed into nova.db.api.Database (needs ``self.writer``)."""

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
        now = timeutils.utcnow().replace(microsecond=0)
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

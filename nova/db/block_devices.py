"""Block device mapping rows: an instance's disks and volumes, and a volume's attachments."""

import sqlalchemy as sa
from oslo_utils import uuidutils

from nova.db import models, statements, store

BDMS = models.BlockDeviceMappingRecord.__table__
INSTANCES = models.InstanceRecord.__table__


class BlockDevicesDB(store.DBStore):
    """The block_device_mapping table."""

    def bdm_get_by_instance(self, instance_uuid):
        with self.engine.connect() as conn:
            rows = conn.execute(statements.select_by(BDMS, ('instance_uuid',), 'id'),
                                statements.params({'instance_uuid': instance_uuid}))
            return [dict(r._mapping) for r in rows]

    def volume_bdms_by_instance(self, instance_uuids):
        """Volume mappings of a page of instances, one query, keyed by instance."""
        if not instance_uuids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(BDMS).where(
                BDMS.c.instance_uuid.in_(list(instance_uuids)),
                BDMS.c.destination_type == 'volume').order_by(BDMS.c.id))
            result = {}
            for row in rows:
                result.setdefault(row.instance_uuid, []).append(dict(row._mapping))
            return result

    def bdm_get_by_volume(self, volume_id):
        """The mappings of ``volume_id`` on instances not deleted (several when multi-attached)."""
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(BDMS).select_from(BDMS.join(
                INSTANCES, INSTANCES.c.uuid == BDMS.c.instance_uuid)).where(
                BDMS.c.volume_id == volume_id, INSTANCES.c.deleted == 0).order_by(BDMS.c.id))
            return [dict(r._mapping) for r in rows]

    def bdm_create(self, values):
        values = dict(values)
        values.setdefault('uuid', uuidutils.generate_uuid())
        with self.writer.begin() as conn:
            self._insert(conn, BDMS, values)
            return self._one(conn, BDMS, BDMS.c.uuid == values['uuid'])

    def bdm_update(self, bdm_uuid, values):
        values = dict(values, updated_at=store.now())
        with self.writer.begin() as conn:
            conn.execute(BDMS.update().where(BDMS.c.uuid == bdm_uuid).values(**values))
            return self._one_by(conn, BDMS, uuid=bdm_uuid)

    def bdm_destroy(self, bdm_uuid):
        with self.writer.begin() as conn:
            conn.execute(BDMS.delete().where(BDMS.c.uuid == bdm_uuid))

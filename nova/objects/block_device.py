"""Block device mapping objects: how each disk of an instance is sourced and placed."""

from oslo_versionedobjects import fields

from nova.objects import base


@base.NovaObjectRegistry.register
class BlockDeviceMapping(base.NovaObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(nullable=True),
        'uuid': fields.UUIDField(),
        'instance_uuid': fields.UUIDField(),
        'source_type': fields.StringField(),
        'destination_type': fields.StringField(),
        'device_name': fields.StringField(nullable=True),
        'device_type': fields.StringField(nullable=True),
        'disk_bus': fields.StringField(nullable=True),
        'boot_index': fields.IntegerField(nullable=True),
        'delete_on_termination': fields.BooleanField(default=False),
        'guest_format': fields.StringField(nullable=True),
        'image_id': fields.StringField(nullable=True),
        'volume_id': fields.StringField(nullable=True),
        'snapshot_id': fields.StringField(nullable=True),
        'volume_size': fields.IntegerField(nullable=True),
        'volume_type': fields.StringField(nullable=True),
        'attachment_id': fields.StringField(nullable=True),
        'connection_info': fields.StringField(nullable=True),
        'tag': fields.StringField(nullable=True),
    }

    @classmethod
    def from_dict(cls, values):
        obj = cls()
        for name in cls.fields:
            if name in values:
                setattr(obj, name, values[name])
        obj.obj_reset_changes()
        return obj

    @property
    def is_root(self):
        return self.boot_index == 0

    @property
    def is_volume(self):
        return self.destination_type == 'volume'


@base.NovaObjectRegistry.register
class BlockDeviceMappingList(base.NovaObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {'objects': fields.ListOfObjectsField('BlockDeviceMapping')}

    @classmethod
    def from_rows(cls, rows):
        return cls(objects=[BlockDeviceMapping.from_dict(r) for r in rows])

    def __iter__(self):
        return iter(self.objects)

    def __len__(self):
        return len(self.objects)

    def root_bdm(self):
        return next((b for b in self.objects if b.boot_index == 0), None)

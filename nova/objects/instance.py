"""Instance object: the server as it crosses RPC from API to conductor to compute."""

from oslo_utils import versionutils
from oslo_versionedobjects import fields

from nova.objects import base, fields_base
from nova.objects import flavor as flavor_obj

# Columns copied one-to-one between the database row and the object.
_SIMPLE = {
    'id': fields.IntegerField(),
    'uuid': fields.UUIDField(),
    'name': fields.StringField(nullable=True),
    'project_id': fields.StringField(nullable=True),
    'user_id': fields.StringField(nullable=True),
    'display_name': fields.StringField(nullable=True),
    'display_description': fields.StringField(nullable=True),
    'hostname': fields.StringField(nullable=True),
    'host': fields.StringField(nullable=True),
    'node': fields.StringField(nullable=True),
    'vm_state': fields.StringField(nullable=True),
    'task_state': fields.StringField(nullable=True),
    'power_state': fields.IntegerField(default=0),
    'image_ref': fields.StringField(nullable=True),
    'kernel_id': fields.StringField(nullable=True),
    'ramdisk_id': fields.StringField(nullable=True),
    'vcpus': fields.IntegerField(nullable=True),
    'memory_mb': fields.IntegerField(nullable=True),
    'root_gb': fields.IntegerField(nullable=True),
    'ephemeral_gb': fields.IntegerField(nullable=True),
    'key_name': fields.StringField(nullable=True),
    # JSON {name, type, public_key}: the key pair the guest was given.
    'key_data': fields.StringField(nullable=True),
    'user_data': fields.StringField(nullable=True),
    'config_drive': fields.StringField(nullable=True),
    'availability_zone': fields.StringField(nullable=True),
    'root_device_name': fields.StringField(nullable=True),
    'launch_index': fields.IntegerField(default=0),
    'reservation_id': fields.StringField(nullable=True),
    'locked': fields.BooleanField(default=False),
    'locked_by': fields.StringField(nullable=True),
    'locked_reason': fields.StringField(nullable=True),
    'metadata': fields.DictOfStringsField(default={}),
    'system_metadata': fields.DictOfNullableStringsField(default={}),
    'tags': fields.ListOfStringsField(default=[]),
    'image_props_override': fields.DictOfStringsField(nullable=True),
    # The server's ports as upstream's network info cache holds them: one
    # dict per VIF (id, address, network with subnets and IPs, type, details,
    # devname, active...). Written by the compute host, read by the views.
    'network_info': fields_base.JSONListField(default=[]),
    # The guest's tagged devices (and NICs with a VLAN) as upstream's metadata
    # "devices" list renders them, read from the live domain by the compute host.
    'device_metadata': fields_base.JSONListField(default=[]),
    'launched_at': fields.DateTimeField(nullable=True),
    'terminated_at': fields.DateTimeField(nullable=True),
    'created_at': fields.DateTimeField(nullable=True),
    'updated_at': fields.DateTimeField(nullable=True),
    'deleted_at': fields.DateTimeField(nullable=True),
    'deleted': fields.IntegerField(default=0),
}


@base.NovaObjectRegistry.register
class Instance(base.NovaObject):
    # Version 1.0: Initial version
    # Version 1.1: key_data
    # Version 1.2: network_info
    # Version 1.3: device_metadata
    VERSION = '1.3'

    fields = dict(_SIMPLE, flavor=fields.ObjectField('Flavor', nullable=True))

    @classmethod
    def from_db(cls, row):
        obj = cls()
        for name in _SIMPLE:
            if name in row:
                value = row[name]
                if name.endswith('_at') and value is not None and value.tzinfo is None:
                    from datetime import timezone
                    value = value.replace(tzinfo=timezone.utc)
                setattr(obj, name, value)
        flavor = row.get('flavor')
        obj.flavor = flavor_obj.Flavor.from_dict(flavor) if flavor else None
        obj.obj_reset_changes()
        return obj

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        if versionutils.convert_version_to_tuple(target_version) < (1, 2):
            primitive.pop('network_info', None)
        if versionutils.convert_version_to_tuple(target_version) < (1, 3):
            primitive.pop('device_metadata', None)

    def refresh_from(self, row):
        fresh = self.from_db(row)
        for name in self.fields:
            if fresh.obj_attr_is_set(name):
                setattr(self, name, getattr(fresh, name))
        self.obj_reset_changes()

"""Flavor object: the hardware template copied into each instance."""

from oslo_versionedobjects import fields

from nova.objects import base


@base.NovaObjectRegistry.register
class Flavor(base.NovaObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(nullable=True),
        'flavorid': fields.StringField(),
        'name': fields.StringField(),
        'vcpus': fields.IntegerField(),
        'memory_mb': fields.IntegerField(),
        'root_gb': fields.IntegerField(),
        'ephemeral_gb': fields.IntegerField(),
        'swap': fields.IntegerField(),
        'rxtx_factor': fields.FloatField(),
        'is_public': fields.BooleanField(),
        'disabled': fields.BooleanField(),
        'description': fields.StringField(nullable=True),
        'extra_specs': fields.DictOfStringsField(),
    }

    @classmethod
    def from_dict(cls, values):
        obj = cls()
        for name in cls.fields:
            if name in values:
                setattr(obj, name, values[name])
        obj.obj_reset_changes()
        return obj

    def to_dict(self):
        return {name: getattr(self, name) for name in self.fields if self.obj_attr_is_set(name)}

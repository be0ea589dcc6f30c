"""Base classes and registry for the project's oslo.versionedobjects."""

from oslo_versionedobjects import base as ovo_base


class NovaObjectRegistry(ovo_base.VersionedObjectRegistry):
    pass


class NovaObject(ovo_base.VersionedObject):
    """Base of every object; the namespace keeps our objects apart on the wire."""

    OBJ_SERIAL_NAMESPACE = 'nova_object'
    OBJ_PROJECT_NAMESPACE = 'nova'


class NovaObjectDictCompat(ovo_base.VersionedObjectDictCompat):
    pass


class NovaObjectSerializer(ovo_base.VersionedObjectSerializer):
    OBJ_BASE_CLASS = NovaObject

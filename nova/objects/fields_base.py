"""Base field types for our versioned objects: strict booleans, UUIDs, enums, JSON lists."""

import json
import uuid

from oslo_utils import strutils
from oslo_versionedobjects import fields as ovo_fields

AutoTypedField = ovo_fields.AutoTypedField


class FlexibleBoolean(ovo_fields.FlexibleBoolean):
    """Boolean that accepts the usual spellings and rejects anything else.

    oslo's own FlexibleBoolean turns any unknown string into False, which
    would let a typo such as ``hw_pmu=ture`` silently disable a feature.
    """

    SPELLINGS = 'true/false, yes/no, on/off, 1/0, y/n, t/f'

    def coerce(self, obj, attr, value):
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str):
            try:
                return strutils.bool_from_string(value.strip(), strict=True)
            except ValueError:
                pass
        raise ValueError('must be a boolean (%s)' % self.SPELLINGS)


class FlexibleBooleanField(AutoTypedField):
    AUTO_TYPE = FlexibleBoolean()


class UUID(ovo_fields.UUID):
    """UUID that is actually validated (oslo only warns on bad input)."""

    def coerce(self, obj, attr, value):
        try:
            return str(uuid.UUID(str(value)))
        except ValueError:
            raise ValueError('must be a UUID')


class UUIDField(AutoTypedField):
    AUTO_TYPE = UUID()


class JSONList(ovo_fields.FieldType):
    """A list of JSON values (dicts, lists, strings, numbers) kept as it is.

    For documents whose shape is another service's (a server's network
    information, in upstream's network info cache format): they cross RPC
    as plain JSON. A JSON text is accepted and decoded.
    """

    def coerce(self, obj, attr, value):
        if isinstance(value, str):
            value = json.loads(value)
        if not isinstance(value, list):
            raise ValueError('must be a list')
        # A copy made of JSON types only: what cannot be serialised fails now.
        return json.loads(json.dumps(value))


class JSONListField(AutoTypedField):
    AUTO_TYPE = JSONList()


class BaseNovaEnum(ovo_fields.Enum):
    """An enum whose valid values are the class attribute ``ALL``.

    Subclasses may override ``normalize`` to map legacy spellings onto a
    canonical value before the membership check.
    """

    ALL = ()

    def __init__(self, **kwargs):
        super().__init__(valid_values=self.__class__.ALL)

    @classmethod
    def normalize(cls, value):
        return value

    def coerce(self, obj, attr, value):
        # Numbers are accepted because JSON clients send e.g. 2.0 for "2.0".
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        if isinstance(value, str):
            value = self.normalize(value)
        if value not in self._valid_values:
            raise ValueError('must be one of %s' % ', '.join(self._valid_values))
        return super().coerce(obj, attr, value)


class LowerCaseEnum(BaseNovaEnum):
    """Enum compared case-insensitively; docs and old images use any case."""

    LEGACY_VALUES = {}

    @classmethod
    def normalize(cls, value):
        value = value.strip().lower()
        return cls.LEGACY_VALUES.get(value, value)

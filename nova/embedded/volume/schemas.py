"""JSON schemas of the embedded volume API's request bodies, per resource and microversion."""

import copy

import jsonschema

UUID = {'type': 'string',
        'pattern': '^[0-9a-fA-F]{8}-?([0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}$'}
OPTIONAL_UUID = dict(UUID, type=['string', 'null'])
NAME = {'type': ['string', 'null'], 'maxLength': 255}
DESCRIPTION = {'type': ['string', 'null'], 'maxLength': 255}
METADATA = {
    'type': ['object', 'null'],
    'patternProperties': {'^.{1,255}$': {'type': 'string', 'maxLength': 255}},
    'additionalProperties': False,
}
# Cinder accepts a size as a number or a string of digits; the range is
# checked in code so the message can name the limits.
SIZE = {'type': ['integer', 'string', 'null'], 'pattern': '^[0-9]+$'}
BOOLEAN = {'type': ['boolean', 'string'],
           'enum': [True, False, 'true', 'false', 'True', 'False', '1', '0',
                    'yes', 'no', 'on', 'off', 't', 'f', 'y', 'n']}

volume_create = {
    'type': 'object',
    'properties': {
        'volume': {
            'type': 'object',
            'properties': {
                'name': NAME,
                'description': DESCRIPTION,
                'display_name': NAME,
                'display_description': DESCRIPTION,
                'volume_type': {'type': ['string', 'null'], 'maxLength': 255},
                'metadata': METADATA,
                'snapshot_id': OPTIONAL_UUID,
                'source_volid': OPTIONAL_UUID,
                'consistencygroup_id': OPTIONAL_UUID,
                'size': SIZE,
                'availability_zone': {'type': ['string', 'null'],
                                      'maxLength': 255},
                'multiattach': BOOLEAN,
                'image_id': {'type': ['string', 'null'], 'maxLength': 255},
                'imageRef': {'type': ['string', 'null'], 'maxLength': 255},
            },
            'additionalProperties': True,
        },
        'OS-SCH-HNT:scheduler_hints': {'type': ['object', 'null']},
    },
    'required': ['volume'],
    'additionalProperties': False,
}
# 3.13 and 3.47 add group_id and backup_id (which we refuse when set).
volume_create_v313 = copy.deepcopy(volume_create)
volume_create_v313['properties']['volume']['properties']['group_id'] = (
    OPTIONAL_UUID)
volume_create_v347 = copy.deepcopy(volume_create_v313)
volume_create_v347['properties']['volume']['properties']['backup_id'] = (
    OPTIONAL_UUID)
# 3.53: unknown volume attributes are rejected instead of ignored.
volume_create_v353 = copy.deepcopy(volume_create_v347)
volume_create_v353['properties']['volume']['additionalProperties'] = False

volume_update = {
    'type': 'object',
    'properties': {
        'volume': {
            'type': 'object',
            'properties': {
                'name': NAME,
                'description': DESCRIPTION,
                'display_name': NAME,
                'display_description': DESCRIPTION,
                'metadata': METADATA,
            },
            'additionalProperties': False,
        },
    },
    'required': ['volume'],
    'additionalProperties': False,
}
# 3.53: an update must change something.
volume_update_v353 = copy.deepcopy(volume_update)
volume_update_v353['properties']['volume']['anyOf'] = [
    {'required': [key]} for key in ('name', 'description', 'display_name',
                                    'display_description', 'metadata')]

extend = {
    'type': 'object',
    'properties': {'os-extend': {
        'type': 'object',
        'properties': {'new_size': SIZE},
        'required': ['new_size'],
        'additionalProperties': False,
    }},
    'required': ['os-extend'],
    'additionalProperties': False,
}

set_bootable = {
    'type': 'object',
    'properties': {'os-set_bootable': {
        'type': 'object',
        'properties': {'bootable': BOOLEAN},
        'required': ['bootable'],
        'additionalProperties': False,
    }},
    'required': ['os-set_bootable'],
    'additionalProperties': False,
}

reimage = {
    'type': 'object',
    'properties': {'os-reimage': {
        'type': 'object',
        'properties': {'image_id': {'type': 'string', 'format': 'uuid'},
                       'reimage_reserved': BOOLEAN},
        'required': ['image_id'],
        'additionalProperties': False,
    }},
    'required': ['os-reimage'],
    'additionalProperties': False,
}

reset_status = {
    'type': 'object',
    'properties': {'os-reset_status': {
        'type': 'object',
        'properties': {
            'status': {'type': 'string', 'enum': [
                'available', 'error', 'in-use', 'error_extending',
                'error_deleting', 'creating', 'deleting', 'reserved',
                'attaching', 'detaching', 'extending', 'maintenance']},
            'attach_status': {'type': 'string', 'enum': [
                'attached', 'detached']},
            'migration_status': {'type': ['string', 'null']},
        },
        'anyOf': [{'required': ['status']}, {'required': ['attach_status']},
                  {'required': ['migration_status']}],
        'additionalProperties': False,
    }},
    'required': ['os-reset_status'],
    'additionalProperties': False,
}

snapshot_create = {
    'type': 'object',
    'properties': {
        'snapshot': {
            'type': 'object',
            'properties': {
                'name': NAME,
                'display_name': NAME,
                'description': DESCRIPTION,
                'display_description': DESCRIPTION,
                'volume_id': UUID,
                'force': BOOLEAN,
                'metadata': METADATA,
            },
            'required': ['volume_id'],
            'additionalProperties': False,
        },
    },
    'required': ['snapshot'],
    'additionalProperties': False,
}

# Cinder's os-update_snapshot_status (what the compute service's assisted
# snapshots send): a status, and a progress like '90%'.
update_snapshot_status = {
    'type': 'object',
    'properties': {'os-update_snapshot_status': {
        'type': 'object',
        'properties': {
            'status': {'type': 'string'},
            'progress': {'type': ['string', 'null']},
        },
        'required': ['status'],
    }},
    'required': ['os-update_snapshot_status'],
    'additionalProperties': False,
}

snapshot_update = {
    'type': 'object',
    'properties': {
        'snapshot': {
            'type': 'object',
            'properties': {
                'name': NAME,
                'description': DESCRIPTION,
                'display_name': NAME,
                'display_description': DESCRIPTION,
            },
            'additionalProperties': False,
            'anyOf': [{'required': [key]} for key in (
                'name', 'description', 'display_name',
                'display_description')],
        },
    },
    'required': ['snapshot'],
    'additionalProperties': False,
}

attachment_create = {
    'type': 'object',
    'properties': {
        'attachment': {
            'type': 'object',
            'properties': {
                'instance_uuid': UUID,
                'connector': {'type': ['object', 'null']},
                'volume_uuid': UUID,
            },
            # Cinder's schema leaves instance_uuid optional and then fails
            # with a 500 without it; asking for it is the honest answer.
            'required': ['volume_uuid', 'instance_uuid'],
            'additionalProperties': False,
        },
    },
    'required': ['attachment'],
    'additionalProperties': False,
}
# 3.54: the attach mode can be given directly.
attachment_create_v354 = copy.deepcopy(attachment_create)
attachment_create_v354['properties']['attachment']['properties']['mode'] = {
    'type': 'string', 'enum': ['rw', 'ro']}

attachment_update = {
    'type': 'object',
    'properties': {
        'attachment': {
            'type': 'object',
            'properties': {
                'connector': {'type': 'object', 'minProperties': 1},
            },
            'required': ['connector'],
            'additionalProperties': False,
        },
    },
    'required': ['attachment'],
    'additionalProperties': False,
}


# Volume types (admin): Cinder's key pattern, string values.
_SPEC_KEY = '^[a-zA-Z0-9-_:. /]{1,255}$'
EXTRA_SPECS = {
    'type': 'object',
    'patternProperties': {_SPEC_KEY: {'type': 'string', 'maxLength': 255}},
    'additionalProperties': False,
}
volume_type_create = {
    'type': 'object',
    'properties': {
        'volume_type': {
            'type': 'object',
            'properties': {
                'name': {'type': 'string', 'minLength': 1, 'maxLength': 255},
                'description': DESCRIPTION,
                'extra_specs': EXTRA_SPECS,
                'os-volume-type-access:is_public': BOOLEAN,
            },
            'required': ['name'],
            'additionalProperties': False,
        },
    },
    'required': ['volume_type'],
    'additionalProperties': False,
}
volume_type_update = {
    'type': 'object',
    'properties': {
        'volume_type': {
            'type': 'object',
            'properties': {
                'name': {'type': 'string', 'minLength': 1, 'maxLength': 255},
                'description': DESCRIPTION,
                'is_public': BOOLEAN,
            },
            'anyOf': [{'required': [key]} for key in ('name', 'description',
                                                      'is_public')],
            'additionalProperties': False,
        },
    },
    'required': ['volume_type'],
    'additionalProperties': False,
}
extra_specs_set = {
    'type': 'object',
    'properties': {'extra_specs': dict(EXTRA_SPECS, minProperties=1)},
    'required': ['extra_specs'],
    'additionalProperties': False,
}
extra_spec_one = dict(EXTRA_SPECS, minProperties=1, maxProperties=1)


# Schemas are module constants, so their ids are stable cache keys.
_VALIDATORS = {}


def first_error(schema, body):
    """Cinder's message for the first way ``body`` breaks ``schema``, or None."""
    validator = _VALIDATORS.get(id(schema))
    if validator is None:
        validator = _VALIDATORS[id(schema)] = jsonschema.Draft4Validator(
            schema)
    error = next(iter(sorted(validator.iter_errors(body),
                             key=lambda e: list(e.path))), None)
    if error is None:
        return None
    path = '/'.join(str(p) for p in error.path) or 'body'
    return ('Invalid input for field/attribute %s. Value: %s. %s'
            % (path, _short(error.instance), error.message))


def _short(value):
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + '...'


def to_bool(value):
    """A BOOLEAN-schema value as a bool."""
    if isinstance(value, bool):
        return value
    return value.lower() in ('true', '1', 'yes', 'on', 't', 'y')

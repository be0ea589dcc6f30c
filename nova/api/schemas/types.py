"""Reusable JSON-schema fragments for request validation."""

name = {
    # Printable characters, no leading/trailing whitespace, 1-255 long.
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'pattern': r'^(?! )[^\x00-\x1f\x7f]*(?<! )$',
}
name_with_leading_trailing_spaces = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    'pattern': r'^[^\x00-\x1f\x7f]*$',
}
description = {'type': ['string', 'null'], 'minLength': 0, 'maxLength': 255,
               'pattern': r'^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$'}
uuid = {'type': 'string', 'format': 'uuid'}
image_ref = {'type': 'string'}
flavor_ref = {'type': ['string', 'integer'], 'minLength': 1}
boolean = {'type': ['boolean', 'string'],
           'enum': [True, 'True', 'TRUE', 'true', '1', 'ON', 'On', 'on', 'YES', 'Yes',
                    'yes', 'y', 't', False, 'False', 'FALSE', 'false', '0', 'OFF', 'Off',
                    'off', 'NO', 'No', 'no', 'n', 'f']}
# Sizes and counts are bounded as upstream (0x7FFFFFFF, its db.MAX_INT); the
# validator applies minimum/maximum to numeric strings too.
MAX_INT = 0x7FFFFFFF
positive_integer = {'type': ['integer', 'string'], 'pattern': '^[0-9]*$', 'minimum': 1,
                    'minLength': 1, 'maximum': MAX_INT}
non_negative_integer = {'type': ['integer', 'string'], 'pattern': '^[0-9]*$', 'minimum': 0,
                        'minLength': 1, 'maximum': MAX_INT}
# A query-string integer: digits only; handlers clamp it (limit to max_limit).
query_integer = {'type': 'string', 'pattern': '^[0-9]+$'}
metadata = {
    'type': 'object',
    'patternProperties': {
        '^[a-zA-Z0-9-_:. ]{1,255}$': {'type': 'string', 'maxLength': 255},
    },
    'additionalProperties': False,
}
tag = {'type': 'string', 'minLength': 1, 'maxLength': 60, 'pattern': '^[^,/]*$'}
admin_password = {'type': 'string'}
ipv4 = {'type': 'string', 'format': 'ipv4'}
ipv6 = {'type': 'string', 'format': 'ipv6'}

# Injected files (up to 2.56); contents are base64, checked when decoded (400).
personality = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {'path': {'type': 'string'}, 'contents': {'type': 'string'}},
        'additionalProperties': False,
    },
}

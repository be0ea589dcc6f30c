"""JSON-schema validation of request bodies and query strings with upstream-style messages."""

import jsonschema

from nova.api import wsgi

_FORMAT_CHECKER = jsonschema.FormatChecker()


def _path(error):
    return '/'.join(str(p) for p in error.absolute_path) or 'body'


def _message(error):
    if error.validator == 'additionalProperties':
        detail = error.message.split('(', 1)[-1].rstrip(')')
        if error.absolute_path:
            return ('Invalid input for field/attribute %s. Value: %s. Additional properties '
                    'are not allowed (%s)' % (_path(error), _short(error.instance), detail))
        return 'Additional properties are not allowed (%s)' % detail
    if error.validator == 'required':
        return error.message
    return ("Invalid input for field/attribute %s. Value: %s. %s"
            % (_path(error), error.instance if not isinstance(error.instance, (dict, list))
               else _short(error.instance), error.message))


def _short(value):
    text = repr(value)
    return text if len(text) < 200 else text[:200] + '...'


def validate(schema, body):
    """Raise a 400 Fault for the first (deepest) schema error in ``body``."""
    validator = jsonschema.Draft4Validator(schema, format_checker=_FORMAT_CHECKER)
    error = jsonschema.exceptions.best_match(validator.iter_errors(body))
    if error is not None:
        raise wsgi.fault(400, _message(error))
    return body


def validate_query(schema, params, strict):
    """Check query params; unknown ones are ignored before 2.75 and rejected after."""
    allowed = schema['properties']
    values = {}
    for key in params:
        if key not in allowed:
            if strict:
                raise wsgi.fault(400, 'Invalid input for query parameters %s. Value: %s. '
                                      'Additional properties are not allowed' % (key, params[key]))
            continue
        values[key] = params.getall(key)
    for key, spec in allowed.items():
        if key in values:
            for value in values[key]:
                try:
                    jsonschema.validate(value, spec, format_checker=_FORMAT_CHECKER)
                except jsonschema.ValidationError as exc:
                    raise wsgi.fault(400, 'Invalid input for query parameters %s. Value: %s. %s'
                                     % (key, value, exc.message))
    return {k: v[-1] for k, v in values.items()}

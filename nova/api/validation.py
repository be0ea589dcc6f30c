"""JSON-schema validation of request bodies and query strings with upstream-style messages."""

import base64
import binascii
import re

import jsonschema
from oslo_utils import timeutils, uuidutils

from nova.api import wsgi

# The upper bound upstream puts on sizes and counts (its db.MAX_INT).
MAX_INT = 0x7FFFFFFF
# Digits beyond which a numeric string is out of every range we accept;
# checked before int(), which refuses more than 4300 digits with ValueError.
_MAX_DIGITS = 20
_INT_TEXT = re.compile(r'^-?[0-9]+$')

# Only the formats we register are checked: jsonschema's default checker
# silently passes date-time (and knows no base64) unless extra packages are
# installed, which let unparsable values through to handlers.
_FORMAT_CHECKER = jsonschema.FormatChecker(formats=())


@_FORMAT_CHECKER.checks('date-time', raises=(ValueError, OverflowError))
def _date_time(instance):
    if not isinstance(instance, str):
        return True
    # normalize_time shifts by the offset, which can leave datetime's range.
    timeutils.normalize_time(timeutils.parse_isotime(instance))
    return True


@_FORMAT_CHECKER.checks('base64', raises=(binascii.Error, ValueError))
def _base64(instance):
    if not isinstance(instance, str):
        return True
    # Strict alphabet and padding, so the compute host can decode what we accept.
    base64.b64decode(re.sub(r'\s', '', instance), validate=True)
    return True


@_FORMAT_CHECKER.checks('uuid')
def _uuid(instance):
    return not isinstance(instance, str) or uuidutils.is_uuid_like(instance)


for _name in ('ipv4', 'ipv6'):
    _FORMAT_CHECKER.checks(_name, raises=ValueError)(
        jsonschema.FormatChecker.checkers[_name][0])


def _numeric_strings(keyword):
    """Let ``minimum``/``maximum`` also bound integers given as strings.

    Upstream's count and size fields take ``1`` and ``"1"`` alike; a bound
    that only applies to JSON numbers lets ``"0"`` or ``"9" * 40`` through.
    """
    check = jsonschema.Draft4Validator.VALIDATORS[keyword]

    def validator(validator, bound, instance, schema):
        if isinstance(instance, str) and _INT_TEXT.match(instance):
            if len(instance.lstrip('-0')) > _MAX_DIGITS:
                yield jsonschema.ValidationError('%s is out of range' % instance[:32])
                return
            instance = int(instance)
        yield from check(validator, bound, instance, schema)
    return validator


_Validator = jsonschema.validators.extend(
    jsonschema.Draft4Validator,
    {'minimum': _numeric_strings('minimum'), 'maximum': _numeric_strings('maximum')})


def clamp_int(text, ceiling):
    """A validated digit string as an int no greater than ``ceiling``."""
    text = text.lstrip('0') or '0'
    return ceiling if len(text) > _MAX_DIGITS else min(int(text), ceiling)


def changes_window(params):
    """The validated query's ``changes-since``/``changes-before`` as naive UTC datetimes.

    400 when the window is empty (since later than before), with upstream's message.
    """
    window = {key: timeutils.normalize_time(timeutils.parse_isotime(params[key]))
              for key in ('changes-since', 'changes-before') if params.get(key)}
    if 'changes-since' in window and 'changes-before' in window and \
            window['changes-before'] < window['changes-since']:
        raise wsgi.fault(400, 'The value of changes-since must be less than or equal to '
                              'changes-before.')
    return window


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


def _short_text(text):
    return text if len(text) <= 64 else text[:64] + '...'


def validate(schema, body):
    """Raise a 400 Fault for the first (deepest) schema error in ``body``."""
    validator = _Validator(schema, format_checker=_FORMAT_CHECKER)
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
                                      'Additional properties are not allowed'
                                 % (_short_text(key), _short_text(params[key])))
            continue
        values[key] = params.getall(key)
    for key, spec in allowed.items():
        if key in values:
            for value in values[key]:
                error = jsonschema.exceptions.best_match(
                    _Validator(spec, format_checker=_FORMAT_CHECKER).iter_errors(value))
                if error is not None:
                    raise wsgi.fault(400, 'Invalid input for query parameters %s. Value: %s. %s'
                                     % (key, _short_text(value), error.message))
    return {k: v[-1] for k, v in values.items()}


def schema(body_schema, min_version=None, max_version=None):
    """Validate the JSON body of a handler against ``body_schema`` in a version range.

    The one way handlers validate a body. Stack one decorator per microversion
    range, as upstream's; the first whose range holds the request's version
    validates the body and passes it to the handler as ``body``. A request
    outside every range is called without validation (the route table, or the
    handler, decides what those versions get). Bounds are named thresholds of
    nova/api/microversion.py.
    """
    def decorator(func):
        inner = getattr(func, '__wrapped_handler__', func)
        ranges = list(getattr(func, '__schemas__', ())) + [
            (body_schema, min_version, max_version)]

        def handler(req, *args, **kwargs):
            spec = body_schema_for(handler, req.api_version)
            if spec is not None:
                kwargs['body'] = validate(spec, req.json_body())
            return inner(req, *args, **kwargs)
        handler.__schemas__ = ranges
        handler.__wrapped_handler__ = inner
        handler.__name__ = inner.__name__
        handler.__doc__ = inner.__doc__
        return handler
    return decorator


def body_schema_for(handler, version):
    """The body schema ``handler`` validates at ``version``, or None."""
    for spec, low, high in getattr(handler, '__schemas__', ()):
        if (low is None or version >= low) and (high is None or version <= high):
            return spec
    return None


def query_schema(params_schema, min_version=None, max_version=None, strict_from=None):
    """Validate the query string; the handler gets the parsed values as ``params``.

    Unknown parameters are ignored below ``strict_from`` and refused at or above it.
    """
    def decorator(func):
        def handler(req, *args, **kwargs):
            version = req.api_version
            if (min_version is None or version >= min_version) and (
                    max_version is None or version <= max_version):
                strict = strict_from is not None and version >= strict_from
                kwargs['params'] = validate_query(params_schema, req.GET, strict)
            return func(req, *args, **kwargs)
        handler.__name__ = func.__name__
        handler.__doc__ = func.__doc__
        return handler
    return decorator

"""JSON decoding for request bodies that refuses what nothing downstream can store."""

import json

# Deeper than any request body the APIs define, shallow enough for recursive
# validators (jsonschema, our own walkers) to stay far from the stack limit.
MAX_DEPTH = 32
# The widest integer a database column takes (signed 64 bits); schemas bound
# most fields far lower, this guards every other one.
MAX_INT = 2 ** 63 - 1


class RefusedJSON(ValueError):
    """The body is JSON, but not one any API accepts; the message says why."""


def loads(raw):
    """Decode ``raw``; ValueError if it is not JSON, RefusedJSON if it is unusable.

    Refused: nesting deeper than MAX_DEPTH, unpaired UTF-16 surrogates
    (``"\\ud800"`` decodes to a str that cannot be encoded, so it would fail in
    the database or in a response), integers wider than 64 bits, and the
    non-JSON constants NaN and Infinity.
    """
    try:
        body = json.loads(raw, parse_constant=_no_constant)
    except RecursionError:
        raise RefusedJSON('The JSON body is nested deeper than %d levels.'
                          % MAX_DEPTH) from None
    check(body)
    return body


def _no_constant(name):
    # NaN and Infinity are not JSON (RFC 8259); Python's parser accepts them.
    raise RefusedJSON('%s is not a valid JSON value.' % name)


def check(body):
    """Walk ``body`` without recursion; RefusedJSON naming the first bad field."""
    stack = [(body, '', 1)]
    while stack:
        value, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise RefusedJSON('Invalid input for field/attribute %s. The JSON body is '
                              'nested deeper than %d levels.' % (where or 'body', MAX_DEPTH))
        if isinstance(value, dict):
            for key, item in value.items():
                _check_text(key, where)
                stack.append((item, _join(where, printable(key)), depth + 1))
        elif isinstance(value, list):
            stack.extend((item, _join(where, str(i)), depth + 1)
                         for i, item in enumerate(value))
        elif isinstance(value, str):
            _check_text(value, where)
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
            raise RefusedJSON('Invalid input for field/attribute %s. Value: %s. The integer '
                              'is out of range.' % (where or 'body', printable(str(value))))


def _join(where, key):
    return '%s/%s' % (where, key) if where else key


def printable(text, limit=64):
    """``text`` safe to put in a message: surrogates escaped, long text cut."""
    text = text.encode('utf-8', 'backslashreplace').decode('utf-8')
    return text if len(text) <= limit else text[:limit] + '...'


def _check_text(text, where):
    try:
        text.encode('utf-8')
    except UnicodeEncodeError:
        raise RefusedJSON('Invalid input for field/attribute %s. Value: %s. The string is '
                          'not valid Unicode (unpaired surrogate).'
                          % (where or 'body', printable(text))) from None

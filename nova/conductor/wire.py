"""Plain rows over RPC: datetimes survive the JSON round trip as tagged ISO strings."""

import datetime

_TAG = 'nova.datetime'


def encode(value):
    """``value`` with every datetime replaced by ``{_TAG: isoformat}``, recursively."""
    if isinstance(value, datetime.datetime):
        return {_TAG: value.isoformat()}
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [encode(v) for v in value]
    return value


def decode(value):
    """The inverse of :func:`encode` (tuples and sets come back as lists)."""
    if isinstance(value, dict):
        if len(value) == 1 and _TAG in value:
            return datetime.datetime.fromisoformat(value[_TAG])
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value

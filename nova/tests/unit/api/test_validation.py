"""The schema decorators pick the schema of the request's microversion."""

import pytest
import webob

from nova.api import validation, wsgi

_OLD = {'type': 'object', 'properties': {'a': {'type': 'integer'}},
        'required': ['a'], 'additionalProperties': False}
_NEW = {'type': 'object', 'properties': {'a': {'type': 'integer'}, 'b': {'type': 'string'}},
        'required': ['a'], 'additionalProperties': False}


@validation.schema(_OLD, (2, 1), (2, 9))
@validation.schema(_NEW, (2, 10))
def _handler(req, body=None):
    return body


@validation.query_schema({'properties': {'limit': {'type': 'string', 'pattern': '^[0-9]+$'}}},
                         strict_from=(2, 75))
def _lister(req, params=None):
    return params


def _req(version, body=b'', query=''):
    req = wsgi.Request(webob.Request.blank('/x' + query).environ)
    req.body = body
    req.environ['nova.api_version'] = version
    return req


def test_schema_of_the_requested_version_applies():
    assert _handler(_req((2, 10), b'{"a": 1, "b": "x"}')) == {'a': 1, 'b': 'x'}
    with pytest.raises(wsgi.Fault) as exc:
        _handler(_req((2, 9), b'{"a": 1, "b": "x"}'))
    assert exc.value.code == 400 and "'b'" in exc.value.message


def test_bad_value_names_the_field():
    with pytest.raises(wsgi.Fault) as exc:
        _handler(_req((2, 50), b'{"a": "one"}'))
    assert 'field/attribute a' in exc.value.message


def test_query_unknown_ignored_before_strict_and_refused_after():
    assert _lister(_req((2, 74), query='?limit=5&junk=1')) == {'limit': '5'}
    with pytest.raises(wsgi.Fault) as exc:
        _lister(_req((2, 75), query='?junk=1'))
    assert exc.value.code == 400
    with pytest.raises(wsgi.Fault):
        _lister(_req((2, 1), query='?limit=x'))

"""Input the API must refuse with a 400 (not a 500): JSON, formats, bounds, versions."""

import pytest

from nova import strict_json
from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import servers as server_schemas
from nova.api.schemas import types


@pytest.mark.parametrize('raw,words', [
    (b'[' * 100000 + b']' * 100000, 'nested deeper'),
    (b'{"a":' * 40 + b'1' + b'}' * 40, 'nested deeper'),
    (b'{"name": "\\ud800"}', 'name'),
    (b'{"\\udfff": 1}', 'unpaired surrogate'),
    (b'{"a": [1, {"b": 99999999999999999999}]}', 'a/1/b'),
    (b'NaN', 'NaN'),
    (b'{"x": -Infinity}', 'Infinity'),
])
def test_strict_json_refuses_what_cannot_be_stored(raw, words):
    with pytest.raises(strict_json.RefusedJSON) as err:
        strict_json.loads(raw)
    assert words in str(err.value)


def test_strict_json_accepts_ordinary_bodies():
    body = b'{"server": {"name": "\\u00e9t\\u00e9 \\ud83d\\ude00", "n": [1, 2.5, null]}}'
    assert strict_json.loads(body) == {'server': {'name': '\u00e9t\u00e9 \U0001f600',
                                                  'n': [1, 2.5, None]}}


def test_request_json_body_answers_400_naming_the_field():
    req = wsgi.Request.blank('/x', method='POST', body=b'{"server": {"name": "\\ud800"}}',
                             content_type='application/json')
    with pytest.raises(wsgi.Fault) as err:
        req.json_body()
    assert err.value.code == 400 and 'server/name' in err.value.message


@pytest.mark.parametrize('text', ['2.' + '9' * 5000, '9' * 17 + '.1', '2.1' + ' ' * 40])
def test_overlong_microversion_is_malformed(text):
    with pytest.raises(mv.MalformedVersion):
        mv.parse(text)


@pytest.mark.parametrize('text', ['2.1\u0663', '2\u0662.1', '2.1\uff11'])
def test_non_ascii_digits_are_malformed(text):
    # int() reads Arabic-Indic or full-width digits; a version is ASCII only.
    with pytest.raises(mv.MalformedVersion):
        mv.parse(text)


@pytest.mark.parametrize('value,ok', [
    ('2024-01-31T10:00:00Z', True), ('2024-01-31T10:00:00', True),
    ('2024-01-31', True), ('2020-13-45T99:00:00Z', False), ('notadate', False),
    ('9999-12-31T23:59:59-01:00', False),
])
def test_date_time_format_is_really_checked(value, ok):
    schema = {'type': 'string', 'format': 'date-time'}
    if ok:
        validation.validate(schema, value)
    else:
        with pytest.raises(wsgi.Fault):
            validation.validate(schema, value)


@pytest.mark.parametrize('value,ok', [('aGVsbG8=', True), ('aGVs\nbG8=', True), ('', True),
                                      ('!!!', False), ('aGVsbG8', False), ('a===', False)])
def test_base64_format_is_really_checked(value, ok):
    schema = {'type': 'string', 'format': 'base64'}
    if ok:
        validation.validate(schema, value)
    else:
        with pytest.raises(wsgi.Fault):
            validation.validate(schema, value)


@pytest.mark.parametrize('value,ok', [
    (1, True), ('1', True), (0x7FFFFFFF, True), ('2147483647', True),
    (0x80000000, False), ('2147483648', False), ('9' * 5000, False), ('0', False),
    (0, False), ('-1', False),
])
def test_counts_are_bounded_whether_number_or_string(value, ok):
    if ok:
        validation.validate(types.positive_integer, value)
    else:
        with pytest.raises(wsgi.Fault):
            validation.validate(types.positive_integer, value)


def test_string_min_count_zero_is_refused_at_the_schema():
    body = {'server': {'name': 'x', 'flavorRef': '1', 'networks': 'none', 'min_count': '0'}}
    with pytest.raises(wsgi.Fault) as err:
        validation.validate(server_schemas.create_v2_37, body)
    assert 'min_count' in err.value.message


def test_non_base64_user_data_is_refused_at_the_schema():
    body = {'server': {'name': 'x', 'flavorRef': '1', 'networks': 'none',
                       'user_data': 'not base64!'}}
    with pytest.raises(wsgi.Fault) as err:
        validation.validate(server_schemas.create_v2_37, body)
    assert 'user_data' in err.value.message


@pytest.mark.parametrize('text,ceiling,expected', [('5', 10, 5), ('50', 10, 10),
                                                   ('9' * 5000, 10, 10), ('000', 10, 0)])
def test_clamp_int(text, ceiling, expected):
    assert validation.clamp_int(text, ceiling) == expected

"""Remote console request schemas per microversion, and the handler's protocol/type table."""

import pytest

from nova.api import validation, wsgi
from nova.api.handlers import remote_consoles as handlers
from nova.api.schemas import remote_consoles as schemas


def _ok(schema, protocol, type_):
    body = {'remote_console': {'protocol': protocol, 'type': type_}}
    try:
        validation.validate(schema, body)
    except wsgi.Fault:
        return False
    return True


@pytest.mark.parametrize('schema', [schemas.create_v2_6, schemas.create_v2_8,
                                    schemas.create_v2_99])
def test_spice_html5_from_2_6(schema):
    assert _ok(schema, 'spice', 'spice-html5')


def test_spice_direct_only_from_2_99():
    assert not _ok(schemas.create_v2_6, 'spice', 'spice-direct')
    assert not _ok(schemas.create_v2_8, 'spice', 'spice-direct')
    assert _ok(schemas.create_v2_99, 'spice', 'spice-direct')


def test_legacy_spice_action_takes_spice_html5_only():
    validation.validate(schemas.get_spice, {'os-getSPICEConsole': {'type': 'spice-html5'}})
    for bad in ({'os-getSPICEConsole': {'type': 'spice-direct'}},
                {'os-getSPICEConsole': {}}, {'os-getSPICEConsole': {'type': 'novnc'}}):
        with pytest.raises(wsgi.Fault):
            validation.validate(schemas.get_spice, bad)


def test_served_pairs_name_the_console_types_of_the_compute_api():
    assert handlers._SERVED[('spice', 'spice-html5')] == 'spice-html5'
    assert handlers._SERVED[('spice', 'spice-direct')] == 'spice-direct'
    # A protocol with another protocol's type is not served (400).
    assert ('vnc', 'spice-html5') not in handlers._SERVED
    assert ('spice', 'novnc') not in handlers._SERVED

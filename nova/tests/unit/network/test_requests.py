"""A server create's networks: upstream's request rules and messages, and the RPC form."""

import pytest

from nova import exception
from nova.network import requests as net_requests

NET = '3b1c9f2e-7d4a-4e8b-9c1d-2f3a4b5c6d7e'
PORT = '9e8d7c6b-5a49-4382-a1b0-c9d8e7f6a5b4'
RN = net_requests.RequestedNetworks


def test_omitted_auto_none():
    assert RN.from_api(None).unspecified and not RN.from_api(None).auto_allocate
    assert RN.from_api('auto').auto_allocate and RN.from_api('auto').unspecified
    none = RN.from_api('none')
    assert none.no_allocate and not none.unspecified and len(none) == 0


def test_a_list_of_networks_and_ports():
    requested = RN.from_api([{'uuid': NET, 'fixed_ip': '10.0.0.9', 'tag': 'a'},
                             {'port': PORT, 'tag': 'b'}, {'uuid': NET}])
    assert [(r.network_id, r.port_id, r.address, r.tag) for r in requested] == [
        (NET, None, '10.0.0.9', 'a'), (None, PORT, None, 'b'), (NET, None, None, None)]
    assert requested.port_ids == [PORT] and requested.network_ids == [NET, NET]
    assert requested.has_fixed_ips and not requested.unspecified


@pytest.mark.parametrize('value,message', [
    ([{'port': PORT, 'fixed_ip': '10.0.0.9'}],
     "Specified Fixed IP '10.0.0.9' cannot be used with port '%s': the two cannot be "
     "specified together." % PORT),
    ([{'uuid': 'not-a-uuid'}],
     'Bad networks format: network uuid is not in proper format (not-a-uuid)'),
    ([{'tag': 'x'}], "Bad network format: missing 'uuid'"),
    ([{'uuid': NET, 'fixed_ip': '10.0.0.300'}], 'Invalid fixed IP address (10.0.0.300)'),
    ([{'uuid': NET, 'fixed_ip': '10'}], 'Invalid fixed IP address (10)'),
    ('everything', 'Bad networks format'),
    (['x'], 'Bad networks format'),
])
def test_bad_requests_are_400_with_upstreams_message(value, message):
    with pytest.raises(exception.Invalid) as caught:
        RN.from_api(value)
    assert caught.value.code == 400
    assert caught.value.format_message() == message


def test_ipv6_fixed_ip_is_fine():
    assert RN.from_api([{'uuid': NET, 'fixed_ip': 'fd00::9'}]).requests[0].address == 'fd00::9'


@pytest.mark.parametrize('value', [None, 'auto', 'none',
                                   [{'uuid': NET, 'fixed_ip': '10.0.0.9', 'tag': 't'},
                                    {'port': PORT}]])
def test_rpc_form_is_the_api_json(value):
    requested = RN.from_api(value)
    assert requested.to_primitive() == value
    again = RN.from_primitive(requested.to_primitive())
    assert again.to_primitive() == value
    assert RN.from_primitive(requested) is requested


def test_max_count_rules():
    RN.from_api([{'uuid': NET}]).check_max_count(3)
    RN.from_api([{'port': PORT}]).check_max_count(1)
    with pytest.raises(exception.MultiplePortsNotApplicable) as caught:
        RN.from_api([{'port': PORT}]).check_max_count(2)
    assert caught.value.code == 400
    assert caught.value.format_message().startswith(
        'Failed to launch instances: Unable to launch multiple instances with a single')
    with pytest.raises(exception.InvalidFixedIpAndMaxCountRequest) as caught:
        RN.from_api([{'uuid': NET, 'fixed_ip': '10.0.0.9'}]).check_max_count(2)
    assert caught.value.format_message() == (
        'Failed to launch instances: max_count cannot be greater than 1 if an fixed_ip '
        'is specified.')

"""Port dns_name: only hostnames Neutron takes as DNS names are set on ports."""

import pytest

from nova.network import allocation


@pytest.mark.parametrize('hostname,ok', [
    ('vm-1', True), ('a' * 63, True), ('web.example.org', True), ('a' * 64, False),
    ('ok.' + 'b' * 64, False), ('', False), (None, False), ('x.' * 128 + 'y', False)])
def test_dns_label_ok(hostname, ok):
    assert allocation._dns_label_ok(hostname) is ok

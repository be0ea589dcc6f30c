"""CPU set parsing/formatting."""

import pytest

from nova import exception
from nova.virt import hardware


def test_parse_cpu_spec():
    assert hardware.parse_cpu_spec('0-3,^2, 6') == {0, 1, 3, 6}
    assert hardware.parse_cpu_spec('') == set()
    for bad in ('a', '3-1', '1-'):
        with pytest.raises(exception.Invalid):
            hardware.parse_cpu_spec(bad)


def test_format_cpu_spec_round_trips():
    assert hardware.format_cpu_spec({5, 0, 1, 2, 7, 8}) == '0-2,5,7-8'
    assert hardware.format_cpu_spec(set()) == ''
    assert hardware.parse_cpu_spec(hardware.format_cpu_spec({1, 3})) == {1, 3}

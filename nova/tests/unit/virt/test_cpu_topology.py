"""CPU topology limits, preferences and the pick, with upstream's rules and errors."""

import pytest

from nova import exception
from nova.objects import image_meta
from nova.virt import cpu_topology as ct


def request(vcpus, specs=None, **props):
    return ct.get_topology_request(vcpus, specs or {},
                                   image_meta.ImageMetaProps.from_dict(props))


def best(vcpus, specs=None, **props):
    return ct.best_topology(vcpus, request(vcpus, specs, **props))


def test_nothing_asked_is_all_sockets_and_not_requested():
    assert best(4) == ct.Topology(4, 1, 1)
    assert not request(4).requested


def test_image_preference_within_the_limits():
    assert best(4, hw_cpu_sockets='2', hw_cpu_cores='2') == ct.Topology(2, 2, 1)
    assert best(8, {'hw:cpu_threads': '2'}) == ct.Topology(4, 1, 2)


def test_image_preference_replaces_the_flavors_as_a_whole():
    assert best(8, {'hw:cpu_sockets': '2', 'hw:cpu_cores': '4'},
                hw_cpu_threads='2') == ct.Topology(4, 1, 2)


def test_image_may_only_lower_the_flavor_limits():
    assert best(4, {'hw:cpu_max_sockets': '2'}, hw_cpu_max_sockets='1') == ct.Topology(1, 4, 1)
    with pytest.raises(exception.Invalid, match=r"hw_cpu_max_sockets=4 exceeds the flavor's "
                                                r'hw:cpu_max_sockets=2'):
        request(4, {'hw:cpu_max_sockets': '2'}, hw_cpu_max_sockets='4')


def test_flavor_preference_above_an_image_limit_is_dropped():
    assert best(4, {'hw:cpu_sockets': '4'}, hw_cpu_max_sockets='2') == ct.Topology(2, 2, 1)


def test_image_preference_above_the_limit_is_refused():
    with pytest.raises(exception.Invalid, match='hw_cpu_sockets=4 exceeds the maximum'):
        request(4, {'hw:cpu_max_sockets': '2'}, hw_cpu_sockets='4')


@pytest.mark.parametrize('props,message', [
    ({'hw_cpu_cores': '-1'}, 'hw_cpu_cores=-1 must be a positive integer'),
    ({'hw_cpu_cores': '8'}, "hw_cpu_cores=8 exceeds the flavor's 2 vCPU"),
    ({'hw_cpu_max_threads': '0'}, 'must be a positive integer'),
])
def test_bad_image_values_name_the_property(props, message):
    with pytest.raises(exception.Invalid, match=message):
        request(2, **props)


def test_impossible_limits_are_refused():
    with pytest.raises(exception.Invalid, match='no CPU topology of 6 vCPU'):
        request(6, {'hw:cpu_max_sockets': '1', 'hw:cpu_max_cores': '2',
                    'hw:cpu_max_threads': '2'})


def test_bad_flavor_value():
    with pytest.raises(exception.Invalid, match='hw:cpu_cores'):
        request(2, {'hw:cpu_cores': 'two'})


def test_numa_threads_hint_keeps_the_closest_thread_count():
    req = request(8, hw_cpu_max_threads='4')
    assert ct.best_topology(8, req, numa_threads=2).threads == 2

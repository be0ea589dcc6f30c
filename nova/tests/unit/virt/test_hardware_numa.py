"""Guest NUMA topology, CPU pinning and page size decisions in nova.virt.hardware."""

import pytest

from nova import exception
from nova.objects import image_meta
from nova.virt import hardware as hw
from nova.virt import numa_fit as fit


def props(**kwargs):
    """Typed image properties from Glance-style strings."""
    return image_meta.ImageMetaProps.from_dict(kwargs)


def topo(vcpus=2, memory_mb=1024, specs=None, **image):
    return hw.get_guest_topology(vcpus, memory_mb, specs or {}, props(**image))


def invalid(match, func, *args, **kwargs):
    with pytest.raises(exception.Invalid, match=match) as info:
        func(*args, **kwargs)
    return info.value


def cell(id_, cpus, memory_kib=4 * 1024 * 1024, pages=((4, 1048576),),
         siblings=()):
    return fit.HostCell(id=id_, cpus=frozenset(cpus), memory_kib=memory_kib,
                       pages=tuple(pages), siblings=tuple(
                           frozenset(s) for s in siblings))


# ----------------------------------------------------------- page sizes

@pytest.mark.parametrize('text, expected', [
    ('small', 'small'), ('LARGE', 'large'), ('any', 'any'),
    ('2048', 2048), ('2MB', 2048), ('2M', 2048), ('2MiB', 2048),
    ('1GB', 1048576), ('1g', 1048576), ('1GiB', 1048576), ('4KB', 4),
    (' 64k ', 64),
])
def test_parse_page_size(text, expected):
    assert hw.parse_page_size(text, 'hw_mem_page_size') == expected


@pytest.mark.parametrize('text', ['0', 'huge', '2TB', '-1', '2.5M', ''])
def test_parse_page_size_rejects(text):
    invalid("hw_mem_page_size=.* is not a page size", hw.parse_page_size,
            text, 'hw_mem_page_size')


@pytest.mark.parametrize('flavor, image, expected', [
    (None, None, None),
    ('large', None, 'large'),
    ('any', None, 'any'),
    ('small', None, 'small'),
    ('any', '2048', 2048),
    ('any', 'small', 'small'),
    ('large', '1GB', 1048576),
    ('large', 'large', 'large'),
    ('2048', '2MB', 2048),            # repeating the flavor is no conflict
])
def test_page_size_request_allowed(flavor, image, expected):
    specs = {'hw:mem_page_size': flavor} if flavor else {}
    image_props = props(hw_mem_page_size=image) if image else props()
    assert hw.page_size_request(specs, image_props) == expected


def test_image_page_size_needs_the_flavor_to_allow_it():
    invalid(r"image property hw_mem_page_size=2048 needs a flavor that "
            r"allows it: the flavor has no hw:mem_page_size \(set it to "
            r"'large' or 'any'\)",
            hw.page_size_request, {}, props(hw_mem_page_size='2048'))


@pytest.mark.parametrize('flavor, image', [
    ('large', 'small'), ('large', 'any'), ('small', 'large'),
    ('small', '2048'), ('2048', '1GB'), ('2048', 'large'),
])
def test_image_page_size_conflicting_with_flavor(flavor, image):
    invalid("image property hw_mem_page_size=%s conflicts with the "
            "flavor's hw:mem_page_size=%s" % (image, flavor),
            hw.page_size_request, {'hw:mem_page_size': flavor},
            props(hw_mem_page_size=image))


def test_bad_flavor_page_size():
    invalid("hw:mem_page_size='huge' is not a page size",
            hw.page_size_request, {'hw:mem_page_size': 'huge'}, props())


# ---------------------------------------------------- CPU/thread policy

@pytest.mark.parametrize('flavor, image, expected', [
    (None, None, None), ('dedicated', None, 'dedicated'),
    (None, 'dedicated', 'dedicated'), (None, 'shared', 'shared'),
    ('dedicated', 'dedicated', 'dedicated'), ('shared', None, 'shared'),
])
def test_cpu_policy_request(flavor, image, expected):
    specs = {'hw:cpu_policy': flavor} if flavor else {}
    image_props = props(hw_cpu_policy=image) if image else props()
    assert hw.cpu_policy_request(specs, image_props) == expected


@pytest.mark.parametrize('flavor, image', [
    ('shared', 'dedicated'), ('dedicated', 'shared')])
def test_image_cpu_policy_conflicting_with_flavor(flavor, image):
    invalid("image property hw_cpu_policy=%s conflicts with the flavor's "
            "hw:cpu_policy=%s" % (image, flavor), hw.cpu_policy_request,
            {'hw:cpu_policy': flavor}, props(hw_cpu_policy=image))


def test_cpu_policy_bad_and_unsupported_values():
    invalid("hw:cpu_policy='pinned': use one of shared, dedicated, mixed",
            hw.cpu_policy_request, {'hw:cpu_policy': 'pinned'}, props())
    invalid('hw_cpu_policy=mixed is not supported', hw.cpu_policy_request,
            {}, props(hw_cpu_policy='mixed'))


def test_thread_policy_request():
    dedicated = 'dedicated'
    assert hw.thread_policy_request({}, props(), dedicated) is None
    assert hw.thread_policy_request(
        {}, props(hw_cpu_thread_policy='isolate'), dedicated) == 'isolate'
    # 'prefer' is only a wish: an image may tighten it.
    assert hw.thread_policy_request(
        {'hw:cpu_thread_policy': 'prefer'},
        props(hw_cpu_thread_policy='require'), dedicated) == 'require'
    invalid("hw_cpu_thread_policy=require conflicts with the flavor's "
            "hw:cpu_thread_policy=isolate", hw.thread_policy_request,
            {'hw:cpu_thread_policy': 'isolate'},
            props(hw_cpu_thread_policy='require'), dedicated)
    invalid('hw_cpu_thread_policy=isolate only applies to guests with '
            'hw_cpu_policy=dedicated', hw.thread_policy_request,
            {}, props(hw_cpu_thread_policy='isolate'), None)
    invalid("hw:cpu_thread_policy='never': use one of prefer, isolate, "
            "require", hw.thread_policy_request,
            {'hw:cpu_thread_policy': 'never'}, props(), dedicated)


# ----------------------------------------------------------- NUMA cells

def cells_of(topology):
    return [(c.id, sorted(c.cpus), c.memory_mb) for c in topology.cells]


def test_no_numa_request_means_no_cells():
    assert topo().cells == ()
    assert topo(hw_mem_page_size=None).cells == ()


def test_even_split_from_image_or_flavor():
    assert cells_of(topo(4, 2048, hw_numa_nodes='2')) == [
        (0, [0, 1], 1024), (1, [2, 3], 1024)]
    assert cells_of(topo(4, 2048, {'hw:numa_nodes': '4'})) == [
        (0, [0], 512), (1, [1], 512), (2, [2], 512), (3, [3], 512)]


def test_uneven_split_needs_explicit_cells():
    invalid(r"the flavor's 3 vCPU\(s\) and 1024 MiB cannot be split evenly "
            r"across 2 NUMA nodes; give hw_numa_cpus.N and hw_numa_mem.N",
            topo, 3, 1024, hw_numa_nodes='2')
    invalid(r"cannot be split evenly across 2 NUMA nodes; give "
            r"hw:numa_cpus.N and hw:numa_mem.N", topo, 2, 1023,
            {'hw:numa_nodes': '2'})


def test_more_nodes_than_vcpus():
    invalid(r"3 NUMA nodes requested but the flavor has only 2 vCPU\(s\): "
            r"every node needs at least one vCPU", topo, 2, 1024,
            hw_numa_nodes='3')


def test_manual_cells_from_image():
    result = topo(3, 1024, hw_numa_nodes='2', **{
        'hw_numa_cpus.0': '0', 'hw_numa_cpus.1': '1-2',
        'hw_numa_mem.0': '256', 'hw_numa_mem.1': '768'})
    assert cells_of(result) == [(0, [0], 256), (1, [1, 2], 768)]


def test_manual_cells_from_flavor():
    specs = {'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0,2',
             'hw:numa_cpus.1': '1,3', 'hw:numa_mem.0': '512',
             'hw:numa_mem.1': '512'}
    assert cells_of(topo(4, 1024, specs)) == [(0, [0, 2], 512),
                                              (1, [1, 3], 512)]


def test_manual_cell_errors():
    base = {'hw_numa_cpus.0': '0', 'hw_numa_cpus.1': '1',
            'hw_numa_mem.0': '512', 'hw_numa_mem.1': '512'}

    def check(match, vcpus=2, memory_mb=1024, **changes):
        image = dict(base, hw_numa_nodes='2')
        image.update(changes)
        image = {k: v for k, v in image.items() if v is not None}
        invalid(match, topo, vcpus, memory_mb, **image)

    check(r'hw_numa_cpus.1 names vCPU 2 but the flavor has 2 vCPU\(s\), '
          r'numbered 0-1', **{'hw_numa_cpus.1': '1-2'})
    check('vCPU 0 is in both hw_numa_cpus.0 and hw_numa_cpus.1',
          **{'hw_numa_cpus.1': '0-1'})
    check(r'vCPU\(s\) 2-3 are in no NUMA node: hw_numa_cpus.N must cover '
          r'all 4 vCPUs', vcpus=4)
    check('hw_numa_mem.N add up to 1024 MiB but the flavor has 2048 MiB',
          memory_mb=2048)
    check('hw_numa_mem.1 is missing: hw_numa_cpus.N and hw_numa_mem.N '
          'must be given for each of the 2 NUMA nodes',
          **{'hw_numa_mem.1': None})
    check('hw_numa_cpus.0 is missing', **{'hw_numa_cpus.0': None})
    check(r'hw_numa_cpus.2 is given but there are only 2 NUMA nodes '
          r'\(0-1\)', vcpus=3, **{'hw_numa_cpus.2': '2'})


def test_manual_cells_need_a_node_count():
    invalid(r'hw_numa_cpus.N/hw_numa_mem.N need the number of NUMA nodes',
            topo, 2, 1024, **{'hw_numa_cpus.0': '0-1',
                              'hw_numa_mem.0': '1024'})


def test_image_may_not_override_flavor_numa():
    invalid("image property hw_numa_nodes=2 conflicts with the flavor's "
            "hw:numa_nodes=1", topo, 2, 1024, {'hw:numa_nodes': '1'},
            hw_numa_nodes='2')
    # Agreeing is fine.
    assert len(topo(2, 1024, {'hw:numa_nodes': '2'},
                    hw_numa_nodes='2').cells) == 2
    specs = {'hw:numa_nodes': '2', 'hw:numa_cpus.0': '0',
             'hw:numa_cpus.1': '1', 'hw:numa_mem.0': '512',
             'hw:numa_mem.1': '512'}
    invalid('image properties hw_numa_cpus.N/hw_numa_mem.N may not '
            'override the NUMA layout the flavor sets', topo, 2, 1024, specs,
            **{'hw_numa_cpus.0': '1', 'hw_numa_cpus.1': '0',
               'hw_numa_mem.0': '512', 'hw_numa_mem.1': '512'})


def test_bad_flavor_numa_specs():
    invalid("hw:numa_nodes='two' must be a positive integer", topo, 2, 1024,
            {'hw:numa_nodes': 'two'})
    invalid("hw:numa_nodes='0' must be a positive integer", topo, 2, 1024,
            {'hw:numa_nodes': '0'})
    invalid("hw:numa_mem.0='lots' must be a positive integer", topo, 2,
            1024, {'hw:numa_nodes': '1', 'hw:numa_cpus.0': '0-1',
                   'hw:numa_mem.0': 'lots'})


def test_pinning_and_huge_pages_imply_one_node():
    dedicated = topo(2, 1024, {'hw:cpu_policy': 'dedicated'})
    assert cells_of(dedicated) == [(0, [0, 1], 1024)]
    assert dedicated.dedicated
    pages = topo(2, 1024, {'hw:mem_page_size': 'large'})
    assert cells_of(pages) == [(0, [0, 1], 1024)]
    assert pages.page_size == 'large'
    # Small pages need no topology.
    assert topo(2, 1024, {'hw:mem_page_size': 'small'}).cells == ()


def test_node_memory_must_be_whole_pages():
    invalid('NUMA node 1 has 1 MiB, not a multiple of the 1048576 KiB page '
            'size', topo, 2, 1025, {'hw:mem_page_size': 'any'},
            hw_mem_page_size='1GB', hw_numa_nodes='2',
            **{'hw_numa_cpus.0': '0', 'hw_numa_cpus.1': '1',
               'hw_numa_mem.0': '1024', 'hw_numa_mem.1': '1'})


# ------------------------------------------------------------ host fit

TWO_CORE_HOST = (cell(0, {0, 1}),)
# Two nodes of two cores with two threads each: siblings {0,4} {1,5} ...
SMT_HOST = (
    cell(0, {0, 1, 4, 5}, siblings=({0, 4}, {1, 5})),
    cell(1, {2, 3, 6, 7}, siblings=({2, 6}, {3, 7})),
)


def pins(placements):
    return {vcpu: host for p in placements for vcpu, host in p.pinning}


def test_shared_guest_floats_over_its_host_node():
    placed = fit.fit_guest_to_host(topo(4, 2048, hw_numa_nodes='2'), SMT_HOST)
    assert [(p.guest_cell, p.host_cell, sorted(p.host_cpus), p.pinning)
            for p in placed] == [(0, 0, [0, 1, 4, 5], ()),
                                 (1, 1, [2, 3, 6, 7], ())]


def test_no_cells_no_placement():
    assert fit.fit_guest_to_host(topo(), SMT_HOST) == ()


def test_more_guest_nodes_than_host_nodes_share_a_node():
    placed = fit.fit_guest_to_host(
        topo(2, 256, {'hw:cpu_policy': 'dedicated'}, hw_numa_nodes='2'),
        TWO_CORE_HOST)
    assert [(p.guest_cell, p.host_cell) for p in placed] == [(0, 0), (1, 0)]
    assert pins(placed) == {0: 0, 1: 1}


def test_dedicated_on_two_core_host_pins_what_fits():
    placed = fit.fit_guest_to_host(topo(2, 512, {'hw:cpu_policy':
                                                'dedicated'}), TWO_CORE_HOST)
    assert pins(placed) == {0: 0, 1: 1}
    assert placed[0].host_cpus == {0, 1}


def test_dedicated_too_many_vcpus_for_the_host():
    invalid(r'guest NUMA node 0 \(4 vCPU\(s\), 512 MiB, pinned, thread '
            r'policy prefer\) fits on no host NUMA node: host node 0: 4 '
            r'pinned vCPU\(s\) need as many free host CPUs, there are 2',
            fit.fit_guest_to_host,
            topo(4, 512, {'hw:cpu_policy': 'dedicated'}), TWO_CORE_HOST)


def test_cpus_pinned_by_other_guests_are_skipped():
    t = topo(1, 512, {'hw:cpu_policy': 'dedicated'})
    assert pins(fit.fit_guest_to_host(t, TWO_CORE_HOST, {0})) == {0: 1}
    invalid('there are 0', fit.fit_guest_to_host, t, TWO_CORE_HOST, {0, 1})


def test_prefer_packs_vcpus_onto_thread_siblings():
    placed = fit.fit_guest_to_host(
        topo(2, 512, {'hw:cpu_policy': 'dedicated'}), SMT_HOST, {0})
    # Core {1,5} is whole; core {0,4} has one thread left: whole core first.
    assert pins(placed) == {0: 1, 1: 5}
    assert placed[0].threads == 1


def test_isolate_takes_whole_cores():
    t = topo(2, 512, {'hw:cpu_policy': 'dedicated',
                      'hw:cpu_thread_policy': 'isolate'})
    placed = fit.fit_guest_to_host(t, SMT_HOST)
    assert pins(placed) == {0: 0, 1: 1}
    # One busy thread spoils its whole core for isolate.
    invalid(r'host node 0: isolate needs 2 cores with every thread free, '
            r'there are 1; host node 1: isolate needs 2 cores with every '
            r'thread free, there are 1', fit.fit_guest_to_host, t, SMT_HOST,
            {4, 7})


def test_require_places_vcpus_on_siblings_and_shows_smt():
    t = topo(4, 1024, {'hw:cpu_policy': 'dedicated'},
             hw_cpu_thread_policy='require')
    placed = fit.fit_guest_to_host(t, SMT_HOST)
    assert pins(placed) == {0: 0, 1: 4, 2: 1, 3: 5}
    assert placed[0].threads == 2
    invalid(r'fits on no host NUMA node: host node 0: require needs SMT '
            r'thread siblings, there are none', fit.fit_guest_to_host,
            topo(2, 512, {'hw:cpu_policy': 'dedicated',
                          'hw:cpu_thread_policy': 'require'}),
            TWO_CORE_HOST)


def test_each_guest_node_on_its_own_host_node_first():
    t = topo(4, 1024, {'hw:cpu_policy': 'dedicated'}, hw_numa_nodes='2')
    placed = fit.fit_guest_to_host(t, SMT_HOST)
    assert [p.host_cell for p in placed] == [0, 1]
    assert pins(placed) == {0: 0, 1: 4, 2: 2, 3: 6}


HUGE_HOST = (
    cell(0, {0}, pages=((4, 1000), (2048, 64), (1048576, 0))),
    cell(1, {1}, pages=((4, 1000), (2048, 512), (1048576, 1))),
)


def test_large_pages_pick_the_largest_size_that_fits():
    t = topo(1, 1024, {'hw:mem_page_size': 'large'})
    placed = fit.fit_guest_to_host(t, HUGE_HOST)
    assert (placed[0].host_cell, placed[0].page_size_kib) == (1, 1048576)
    t = topo(1, 128, {'hw:mem_page_size': 'large'})
    assert fit.fit_guest_to_host(t, HUGE_HOST)[0].page_size_kib == 2048


def test_explicit_page_size_and_page_accounting():
    t = topo(2, 256, {'hw:mem_page_size': '2048'}, hw_numa_nodes='2')
    # 64 pages (128 MiB) per guest node: node 0 has exactly 64.
    placed = fit.fit_guest_to_host(t, HUGE_HOST)
    assert [(p.host_cell, p.page_size_kib) for p in placed] == [
        (0, 2048), (1, 2048)]
    t = topo(1, 256, {'hw:mem_page_size': '2MB'})
    placed = fit.fit_guest_to_host(t, HUGE_HOST)
    assert placed[0].host_cell == 1


def test_no_huge_pages_on_the_host():
    invalid(r'guest NUMA node 0 \(1 vCPU\(s\), 128 MiB, 2048 KiB pages\) '
            r'fits on no host NUMA node: host node 0: not enough 2048 KiB '
            r'pages for 128 MiB \(pages on the host node: 2048 KiB: 0\)',
            fit.fit_guest_to_host, topo(1, 128, {'hw:mem_page_size': '2048'}),
            (cell(0, {0, 1}, pages=((4, 1000), (2048, 0))),))


def test_any_falls_back_to_small_pages():
    t = topo(1, 2048, {'hw:mem_page_size': 'any'})
    placed = fit.fit_guest_to_host(t, HUGE_HOST)
    assert placed[0].page_size_kib is None


def test_explicit_small_page_size_is_small():
    t = topo(1, 512, {'hw:mem_page_size': '4'})
    assert fit.fit_guest_to_host(t, HUGE_HOST)[0].page_size_kib is None


def test_small_page_guest_needs_node_memory():
    invalid(r'host node 0: 4096 MiB free, 8192 MiB needed',
            fit.fit_guest_to_host, topo(2, 8192, hw_numa_nodes='1'),
            TWO_CORE_HOST)


def test_host_without_topology():
    invalid('the host reports no NUMA topology', fit.fit_guest_to_host,
            topo(1, 512, hw_numa_nodes='1'), ())


def test_host_cell_cores_and_pages():
    c = cell(0, {0, 1, 2, 3}, pages=((4, 10), (2048, 2), (1048576, 1)),
             siblings=({0, 2}, {1, 3}, {0, 2}))
    assert c.cores() == [frozenset({0, 2}), frozenset({1, 3})]
    assert c.small_page_kib == 4
    assert c.large_page_sizes == [1048576, 2048]
    assert c.page_count(2048) == 2 and c.page_count(16) == 0
    assert cell(0, {3, 1}).cores() == [frozenset({1}), frozenset({3})]

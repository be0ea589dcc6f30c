"""CPU sets, and the guest NUMA, pinning and page-size request of a flavor and image."""

import dataclasses
import re

from nova import exception


def parse_cpu_spec(spec):
    """Turn '0-3,^2,6' into {0, 1, 3, 6}; raise Invalid on bad syntax."""
    include, exclude = set(), set()
    for part in (p.strip() for p in spec.split(',')):
        if not part:
            continue
        target = include
        if part.startswith('^'):
            target, part = exclude, part[1:]
        try:
            if '-' in part:
                low, high = (int(x) for x in part.split('-', 1))
                if low > high:
                    raise ValueError(part)
                target.update(range(low, high + 1))
            else:
                target.add(int(part))
        except ValueError:
            raise exception.Invalid(
                reason='invalid CPU range %r in %r' % (part, spec))
    return include - exclude


def format_cpu_spec(cpus):
    """Turn {0, 1, 2, 5} into '0-2,5' (ranges keep libvirt XML short)."""
    ordered = sorted(cpus)
    parts = []
    start = prev = None
    for cpu in ordered:
        if prev is not None and cpu == prev + 1:
            prev = cpu
            continue
        if start is not None:
            parts.append(_format_range(start, prev))
        start = prev = cpu
    if start is not None:
        parts.append(_format_range(start, prev))
    return ','.join(parts)


def _format_range(start, end):
    return str(start) if start == end else '%d-%d' % (start, end)


# ======================================================================
# Guest NUMA topology, CPU pinning and memory page sizes: pure decisions.
#
# Two halves.  The *request* (get_guest_topology, here) reads only the
# flavor and the image properties, so the API can reject a bad combination
# before anything is created.  The *fit* (numa_fit.fit_guest_to_host)
# places that request on host facts passed in by the caller; the driver
# turns the result into XML.  Neither half touches libvirt, config or the
# database.
# ======================================================================

CPU_SHARED = 'shared'
CPU_DEDICATED = 'dedicated'
CPU_MIXED = 'mixed'
CPU_POLICIES = (CPU_SHARED, CPU_DEDICATED, CPU_MIXED)

THREAD_PREFER = 'prefer'
THREAD_ISOLATE = 'isolate'
THREAD_REQUIRE = 'require'
THREAD_POLICIES = (THREAD_PREFER, THREAD_ISOLATE, THREAD_REQUIRE)

# Symbolic page size requests; explicit sizes are ints in KiB.
PAGE_SMALL = 'small'
PAGE_LARGE = 'large'
PAGE_ANY = 'any'
_PAGE_WORDS = (PAGE_SMALL, PAGE_LARGE, PAGE_ANY)
# x86's base page; only used when host facts do not say otherwise.
DEFAULT_SMALL_PAGE_KIB = 4

# Flavor extra spec keys (upstream's names).
SPEC_NUMA_NODES = 'hw:numa_nodes'
SPEC_PAGE_SIZE = 'hw:mem_page_size'
SPEC_CPU_POLICY = 'hw:cpu_policy'
SPEC_THREAD_POLICY = 'hw:cpu_thread_policy'

_PAGE_SIZE_RE = re.compile(r'^\s*(\d+)\s*([kmg]i?b?)?\s*$', re.I)
_UNIT_KIB = {'k': 1, 'm': 1024, 'g': 1024 * 1024}
_INDEXED_SPEC_RE = re.compile(r'^hw:numa_(cpus|mem)\.(\d+)$')


def _invalid(reason, *args):
    return exception.Invalid(reason=reason % args if args else reason)


# ------------------------------------------------------------ the request

@dataclasses.dataclass(frozen=True)
class GuestCell:
    """One guest NUMA node: its vCPU numbers and memory in MiB."""

    id: int
    cpus: frozenset
    memory_mb: int


@dataclasses.dataclass(frozen=True)
class GuestTopology:
    """What the flavor and image ask for, before any host is known.

    ``cells`` is empty when the guest needs no NUMA topology at all.
    ``page_size`` is None, PAGE_SMALL/LARGE/ANY or a size in KiB.
    """

    vcpus: int
    memory_mb: int
    cells: tuple = ()
    cpu_policy: str = None
    thread_policy: str = None
    page_size: object = None

    @property
    def dedicated(self):
        return self.cpu_policy == CPU_DEDICATED


def parse_page_size(value, source):
    """'small'/'large'/'any', KiB as digits, or digits with K/M/G[i][B]."""
    text = str(value).strip().lower()
    if text in _PAGE_WORDS:
        return text
    match = _PAGE_SIZE_RE.match(text)
    if not match or int(match.group(1)) <= 0:
        raise _invalid("%s=%r is not a page size: use small, large, any, a "
                       "size in KiB such as 2048, or one with a unit such "
                       "as 2MB or 1GiB", source, value)
    unit = (match.group(2) or 'k')[0]
    return int(match.group(1)) * _UNIT_KIB[unit]


def _describe_page(size):
    return size if isinstance(size, str) else '%d KiB' % size


def page_size_request(extra_specs, image_props):
    """The page size the guest gets, or None; flavor/image conflicts raise.

    The flavor is the operator's word: an image (or a boot-time override)
    may only choose a page size when the flavor says 'any', or 'large' and
    the image picks a large size; otherwise it may only repeat the flavor.
    """
    flavor_raw = extra_specs.get(SPEC_PAGE_SIZE)
    image_raw = image_props.get('hw_mem_page_size')
    flavor = (parse_page_size(flavor_raw, SPEC_PAGE_SIZE)
              if flavor_raw is not None else None)
    image = (parse_page_size(image_raw, 'hw_mem_page_size')
             if image_raw is not None else None)
    if image is None:
        return flavor
    if flavor is None:
        raise _invalid(
            "image property hw_mem_page_size=%s needs a flavor that allows "
            "it: the flavor has no %s (set it to 'large' or 'any')",
            image_raw, SPEC_PAGE_SIZE)
    allowed = (flavor == PAGE_ANY or image == flavor or
               (flavor == PAGE_LARGE and isinstance(image, int)))
    if not allowed:
        raise _invalid(
            "image property hw_mem_page_size=%s conflicts with the flavor's "
            "%s=%s (an image may only choose when the flavor says 'any', "
            "or a large size when it says 'large')",
            image_raw, SPEC_PAGE_SIZE, flavor_raw)
    return image


def cpu_policy_request(extra_specs, image_props):
    """'shared', 'dedicated' or None; an image may not contradict the flavor."""
    flavor = extra_specs.get(SPEC_CPU_POLICY)
    image = image_props.get('hw_cpu_policy')
    if flavor is not None and flavor not in CPU_POLICIES:
        raise _invalid('flavor extra spec %s=%r: use one of %s',
                       SPEC_CPU_POLICY, flavor, ', '.join(CPU_POLICIES))
    if flavor and image and flavor != image:
        raise _invalid(
            'image property hw_cpu_policy=%s conflicts with the flavor\'s '
            '%s=%s', image, SPEC_CPU_POLICY, flavor)
    policy = flavor or image
    if policy == CPU_MIXED:
        # Mixed needs hw:cpu_dedicated_mask handling nobody asked for yet.
        raise _invalid('hw_cpu_policy=mixed is not supported')
    return policy


def thread_policy_request(extra_specs, image_props, cpu_policy):
    """'prefer'/'isolate'/'require' or None; only with dedicated CPUs.

    The image may tighten the flavor's 'prefer' (which is only a wish),
    but may not contradict an 'isolate' or 'require' the flavor sets.
    """
    flavor = extra_specs.get(SPEC_THREAD_POLICY)
    image = image_props.get('hw_cpu_thread_policy')
    if flavor is not None and flavor not in THREAD_POLICIES:
        raise _invalid('flavor extra spec %s=%r: use one of %s',
                       SPEC_THREAD_POLICY, flavor, ', '.join(THREAD_POLICIES))
    if flavor and image and flavor != image and flavor != THREAD_PREFER:
        raise _invalid(
            'image property hw_cpu_thread_policy=%s conflicts with the '
            'flavor\'s %s=%s', image, SPEC_THREAD_POLICY, flavor)
    policy = image or flavor
    if policy and cpu_policy != CPU_DEDICATED:
        raise _invalid('hw_cpu_thread_policy=%s only applies to guests with '
                       'hw_cpu_policy=dedicated', policy)
    return policy


def _positive_int(value, source):
    try:
        number = int(str(value).strip())
    except ValueError:
        number = 0
    if number < 1:
        raise _invalid('%s=%r must be a positive integer', source, value)
    return number


def _flavor_numa_lists(extra_specs):
    """hw:numa_cpus.N / hw:numa_mem.N as {N: cpus} and {N: MiB}."""
    cpus, mem = {}, {}
    for key, value in extra_specs.items():
        match = _INDEXED_SPEC_RE.match(key)
        if not match:
            continue
        kind, index = match.group(1), int(match.group(2))
        if kind == 'cpus':
            cpus[index] = parse_cpu_spec(str(value))
            if not cpus[index]:
                raise _invalid('flavor extra spec %s=%r names no vCPU',
                               key, value)
        else:
            mem[index] = _positive_int(value, key)
    return cpus, mem


def _indexed(values):
    return dict(enumerate(values)) if values else {}


def numa_node_count_request(extra_specs, image_props):
    """hw:numa_nodes / hw_numa_nodes, or None; they must agree if both set."""
    flavor_raw = extra_specs.get(SPEC_NUMA_NODES)
    flavor = (_positive_int(flavor_raw, SPEC_NUMA_NODES)
              if flavor_raw is not None else None)
    image = image_props.get('hw_numa_nodes')
    if image is not None and image < 1:
        raise _invalid('image property hw_numa_nodes=%r must be a positive '
                       'integer', image)
    if flavor and image and flavor != image:
        raise _invalid('image property hw_numa_nodes=%d conflicts with the '
                       'flavor\'s %s=%d', image, SPEC_NUMA_NODES, flavor)
    return flavor or image


def numa_cells_request(vcpus, memory_mb, extra_specs, image_props,
                       implicit=False):
    """Guest NUMA cells from the flavor or the image, checked; () if none.

    ``implicit``: the guest needs a topology anyway (pinning, huge pages)
    so a single node is made when nothing asks for more.
    """
    nodes = numa_node_count_request(extra_specs, image_props)
    flavor_cpus, flavor_mem = _flavor_numa_lists(extra_specs)
    image_cpus = _indexed(image_props.get('hw_numa_cpus'))
    image_mem = _indexed(image_props.get('hw_numa_mem'))
    if (flavor_cpus or flavor_mem) and (image_cpus or image_mem) and \
            (flavor_cpus, flavor_mem) != (image_cpus, image_mem):
        raise _invalid('image properties hw_numa_cpus.N/hw_numa_mem.N may '
                       'not override the NUMA layout the flavor sets with '
                       'hw:numa_cpus.N/hw:numa_mem.N')
    # Messages name the keys of whoever set the layout, flavor or image.
    if flavor_cpus or flavor_mem:
        cpus, mem, prefix = flavor_cpus, flavor_mem, 'hw:numa_'
    else:
        cpus, mem = image_cpus, image_mem
        prefix = ('hw:numa_' if not (cpus or mem) and
                  extra_specs.get(SPEC_NUMA_NODES) is not None else 'hw_numa_')
    if nodes is None:
        if cpus or mem:
            raise _invalid('%scpus.N/%smem.N need the number of NUMA nodes '
                           '(hw_numa_nodes or hw:numa_nodes)', prefix, prefix)
        if not implicit:
            return ()
        nodes = 1
    if nodes > vcpus:
        raise _invalid('%d NUMA nodes requested but the flavor has only %d '
                       'vCPU(s): every node needs at least one vCPU',
                       nodes, vcpus)
    if cpus or mem:
        return _manual_cells(nodes, vcpus, memory_mb, cpus, mem, prefix)
    if vcpus % nodes or memory_mb % nodes:
        raise _invalid(
            'the flavor\'s %d vCPU(s) and %d MiB cannot be split evenly '
            'across %d NUMA nodes; give %scpus.N and %smem.N for every node',
            vcpus, memory_mb, nodes, prefix, prefix)
    per_cpu, per_mem = vcpus // nodes, memory_mb // nodes
    return tuple(GuestCell(i, frozenset(range(i * per_cpu, (i + 1) * per_cpu)),
                           per_mem) for i in range(nodes))


def _manual_cells(nodes, vcpus, memory_mb, cpus, mem, prefix):
    expected = set(range(nodes))
    for name, given in (('cpus', cpus), ('mem', mem)):
        if set(given) != expected:
            missing = sorted(expected - set(given))
            extra = sorted(set(given) - expected)
            if missing:
                raise _invalid('%s%s.%d is missing: %scpus.N and %smem.N '
                               'must be given for each of the %d NUMA nodes',
                               prefix, name, missing[0], prefix, prefix,
                               nodes)
            raise _invalid('%s%s.%d is given but there are only %d NUMA '
                           'nodes (0-%d)', prefix, name, extra[0], nodes,
                           nodes - 1)
    owner = {}
    for index in range(nodes):
        for cpu in sorted(cpus[index]):
            if cpu >= vcpus:
                raise _invalid('%scpus.%d names vCPU %d but the flavor has %d '
                               'vCPU(s), numbered 0-%d', prefix, index, cpu,
                               vcpus, vcpus - 1)
            if cpu in owner:
                raise _invalid('vCPU %d is in both %scpus.%d and %scpus.%d',
                               cpu, prefix, owner[cpu], prefix, index)
            owner[cpu] = index
        if mem[index] < 1:
            raise _invalid('%smem.%d=%d must be a positive number of MiB',
                           prefix, index, mem[index])
    unassigned = set(range(vcpus)) - set(owner)
    if unassigned:
        raise _invalid('vCPU(s) %s are in no NUMA node: %scpus.N must cover '
                       'all %d vCPUs', format_cpu_spec(unassigned), prefix,
                       vcpus)
    total = sum(mem.values())
    if total != memory_mb:
        raise _invalid('%smem.N add up to %d MiB but the flavor has %d MiB',
                       prefix, total, memory_mb)
    return tuple(GuestCell(i, frozenset(cpus[i]), mem[i])
                 for i in range(nodes))


def get_guest_topology(vcpus, memory_mb, extra_specs, image_props):
    """The whole CPU/NUMA/page-size request of a flavor + image, checked.

    ``image_props`` needs ``.get(name)`` returning typed values (as
    ImageMetaProps does).  Raises Invalid with the reason on any conflict.
    """
    extra_specs = extra_specs or {}
    cpu_policy = cpu_policy_request(extra_specs, image_props)
    thread_policy = thread_policy_request(extra_specs, image_props,
                                          cpu_policy)
    page_size = page_size_request(extra_specs, image_props)
    # Pinning and huge pages are per host NUMA node, so such guests get a
    # (one node) topology even when nobody asked for NUMA, as upstream.
    implicit = cpu_policy == CPU_DEDICATED or page_size not in (
        None, PAGE_SMALL)
    cells = numa_cells_request(vcpus, memory_mb, extra_specs, image_props,
                               implicit=implicit)
    if isinstance(page_size, int):
        for cell in cells:
            if (cell.memory_mb * 1024) % page_size:
                raise _invalid('NUMA node %d has %d MiB, not a multiple of '
                               'the %d KiB page size', cell.id,
                               cell.memory_mb, page_size)
    return GuestTopology(vcpus=vcpus, memory_mb=memory_mb, cells=cells,
                         cpu_policy=cpu_policy, thread_policy=thread_policy,
                         page_size=page_size)

"""Guest CPU topology (sockets, cores, threads) from flavor and image: limits, preference, pick."""

# Upstream's rules, in our words: the flavor's hw:cpu_max_* are the
# operator's ceiling and an image (or a boot-time override) may only lower
# it; preferred counts from the image replace the flavor's as a whole; a
# preference above the ceiling is an error from the image and is dropped
# from the flavor; the chosen topology is the one that multiplies out to
# the vCPU count, matches the most preferred counts and, among equals,
# has the fewest threads and the most sockets.

import dataclasses

from nova import exception

# The ceiling when neither the flavor nor the image sets one.
NO_LIMIT = 65536
PARTS = ('sockets', 'cores', 'threads')


@dataclasses.dataclass(frozen=True)
class Topology:
    sockets: int
    cores: int
    threads: int

    def describe(self):
        return 'sockets=%d, cores=%d, threads=%d' % (self.sockets, self.cores, self.threads)


@dataclasses.dataclass(frozen=True)
class TopologyRequest:
    """``preferred``: 0 where nothing is preferred; ``maximum``: the ceiling;
    ``requested``: whether the flavor or image said anything at all."""

    preferred: Topology
    maximum: Topology
    requested: bool = False


def _invalid(reason, *args):
    return exception.Invalid(reason=reason % args if args else reason)


def _flavor_count(extra_specs, key, vcpus):
    raw = extra_specs.get(key)
    if raw is None:
        return 0
    try:
        value = int(str(raw).strip())
    except ValueError:
        value = 0
    if value < 1:
        raise _invalid('flavor extra spec %s=%r must be a positive integer', key, raw)
    return value


def _image_count(props, key, vcpus):
    """A preferred count must fit the vCPUs; a limit only be positive."""
    value = props.get(key)
    if value is None:
        return 0
    if value < 1:
        raise _invalid('image property %s=%r must be a positive integer', key, value)
    if value > vcpus and '_max_' not in key:
        raise _invalid("image property %s=%r exceeds the flavor's %d vCPU(s)",
                       key, value, vcpus)
    return value


def _counts(reader, source, prefix, vcpus):
    return Topology(*(reader(source, '%s%s' % (prefix, part), vcpus) for part in PARTS))


def get_topology_request(vcpus, extra_specs, image_props):
    """The preferred and maximum topology, checked: Invalid names the key."""
    extra_specs = extra_specs or {}
    flavor_max = _counts(_flavor_count, extra_specs, 'hw:cpu_max_', vcpus)
    image_max = _counts(_image_count, image_props, 'hw_cpu_max_', vcpus)
    for part in PARTS:
        limit, asked = getattr(flavor_max, part), getattr(image_max, part)
        if limit and asked > limit:
            raise _invalid("image property hw_cpu_max_%s=%d exceeds the flavor's "
                           'hw:cpu_max_%s=%d: an image may only lower the limits',
                           part, asked, part, limit)
    maximum = Topology(*(getattr(image_max, p) or getattr(flavor_max, p) or NO_LIMIT
                         for p in PARTS))
    flavor_pref = _counts(_flavor_count, extra_specs, 'hw:cpu_', vcpus)
    image_pref = _counts(_image_count, image_props, 'hw_cpu_', vcpus)
    if any(getattr(flavor_pref, p) > getattr(maximum, p) for p in PARTS):
        # The image lowered the limits below what the flavor prefers.
        flavor_pref = Topology(0, 0, 0)
    for part in PARTS:
        if getattr(image_pref, part) > getattr(maximum, part):
            raise _invalid('image property hw_cpu_%s=%d exceeds the maximum %s=%d',
                           part, getattr(image_pref, part), part, getattr(maximum, part))
    # Any preferred count in the image replaces all of the flavor's.
    preferred = image_pref if any(dataclasses.astuple(image_pref)) else flavor_pref
    requested = any(dataclasses.astuple(flavor_pref) + dataclasses.astuple(image_pref)) or \
        maximum != Topology(NO_LIMIT, NO_LIMIT, NO_LIMIT)
    request = TopologyRequest(preferred, maximum, requested)
    possible_topologies(vcpus, request.maximum)
    return request


def possible_topologies(vcpus, maximum, max_threads=None):
    """Every topology of exactly ``vcpus`` within ``maximum``, best first
    before preferences: most sockets*cores (fewest threads), then sockets."""
    limit = [min(vcpus, getattr(maximum, p)) for p in PARTS]
    if max_threads is not None:
        limit[2] = min(limit[2], max_threads)
    found = [Topology(s, c, t)
             for s in range(1, limit[0] + 1)
             for c in range(1, limit[1] + 1)
             if vcpus % (s * c) == 0
             for t in (vcpus // (s * c),) if t <= limit[2]]
    if not found:
        raise _invalid('no CPU topology of %d vCPU(s) fits the limits sockets<=%d, cores<=%d, '
                       'threads<=%d (from hw:cpu_max_* / hw_cpu_max_*)', vcpus, *limit)
    return sorted(found, key=lambda t: (t.sockets * t.cores, t.sockets, t.threads),
                  reverse=True)


def _score(topology, preferred):
    return sum(1 for p in PARTS
               if getattr(preferred, p) and getattr(topology, p) == getattr(preferred, p))


def best_topology(vcpus, request, numa_threads=None):
    """The topology the guest gets: the best-scoring possible one; with
    ``numa_threads`` (threads per core the NUMA placement gives), those
    with the most threads not above it come first, as upstream."""
    possible = possible_topologies(vcpus, request.maximum)
    if numa_threads:
        wanted = min(numa_threads, request.preferred.threads or numa_threads)
        most = max((t.threads for t in possible if t.threads <= wanted), default=0)
        possible = [t for t in possible if t.threads == most] or possible
    # A stable sort keeps the order above among equal scores.
    return sorted(possible, key=lambda t: -_score(t, request.preferred))[0]

"""Guest NUMA nodes placed on host NUMA nodes: CPUs, memory, huge pages, pinning."""

import dataclasses

from nova import exception
from nova.virt.hardware import (
    DEFAULT_SMALL_PAGE_KIB,
    PAGE_ANY,
    PAGE_SMALL,
    THREAD_ISOLATE,
    THREAD_PREFER,
    THREAD_REQUIRE,
)
from nova.virt.hardware import _describe_page as describe_page


def _invalid(reason, *args):
    return exception.Invalid(reason=reason % args if args else reason)


# ------------------------------------------------------------- host facts

@dataclasses.dataclass(frozen=True)
class HostCell:
    """One host NUMA node as libvirt's capabilities describe it.

    ``pages``: ((size_kib, count), ...) - free pages when the caller knows
    them, else totals.  ``siblings``: the SMT thread sets of its cores.
    """

    id: int
    cpus: frozenset
    memory_kib: int
    pages: tuple = ()
    siblings: tuple = ()

    def page_count(self, size_kib):
        return dict(self.pages).get(size_kib, 0)

    @property
    def small_page_kib(self):
        return min((s for s, _ in self.pages), default=DEFAULT_SMALL_PAGE_KIB)

    @property
    def large_page_sizes(self):
        """Sizes above the base page, largest first."""
        small = self.small_page_kib
        return sorted((s for s, _ in self.pages if s > small), reverse=True)

    def cores(self):
        """Sibling sets limited to this cell; one CPU per core if unknown."""
        cores, seen = [], set()
        for group in self.siblings:
            group = frozenset(group) & self.cpus
            if group and not group & seen:
                cores.append(group)
                seen |= group
        cores.extend(frozenset([cpu]) for cpu in sorted(self.cpus - seen))
        return sorted(cores, key=min)


@dataclasses.dataclass(frozen=True)
class CellPlacement:
    """Where one guest NUMA node lands on the host.

    ``pinning``: ((vcpu, host_cpu), ...) for dedicated guests, else ().
    ``host_cpus``: the host CPUs this node's vCPUs may run on.
    ``page_size_kib``: None for the base page size.
    ``threads``: SMT threads per core the guest should see (1 unless the
    vCPUs were placed on thread siblings with 'require').
    """

    guest_cell: int
    host_cell: int
    host_cpus: frozenset
    page_size_kib: int = None
    pinning: tuple = ()
    threads: int = 1


class _NoFit(Exception):
    """This guest node does not fit this host node; args[0] says why."""


class _HostState:
    """What earlier nodes of the same guest took from each host node."""

    def __init__(self, cells, pinned_cpus):
        self.taken_cpus = set(pinned_cpus)
        self.used_kib = {c.id: 0 for c in cells}
        self.used_pages = {}

    def pages_left(self, cell, size):
        return cell.page_count(size) - self.used_pages.get((cell.id, size), 0)

    def take(self, gcell, placement, cpus):
        self.taken_cpus |= cpus
        need_kib = gcell.memory_mb * 1024
        if placement.page_size_kib is None:
            self.used_kib[placement.host_cell] += need_kib
        else:
            key = (placement.host_cell, placement.page_size_kib)
            self.used_pages[key] = self.used_pages.get(key, 0) + \
                need_kib // placement.page_size_kib


def _pick_page_size(request, gcell, hcell, state):
    """The page size in KiB for this node, None for base pages; or _NoFit."""
    need_kib = gcell.memory_mb * 1024
    if request == hcell.small_page_kib:
        # An explicit base-page size is just "small": no <hugepages>.
        request = PAGE_SMALL
    if request in (None, PAGE_SMALL):
        left = hcell.memory_kib - state.used_kib[hcell.id]
        if need_kib > left:
            raise _NoFit('%d MiB free, %d MiB needed'
                         % (left // 1024, gcell.memory_mb))
        return None
    candidates = ([request] if isinstance(request, int)
                  else hcell.large_page_sizes)
    for size in candidates:
        if need_kib % size == 0 and \
                state.pages_left(hcell, size) >= need_kib // size:
            return size
    if request == PAGE_ANY:
        return _pick_page_size(PAGE_SMALL, gcell, hcell, state)
    free = ', '.join('%d KiB: %d' % (size, state.pages_left(hcell, size))
                     for size in candidates) or 'no large pages at all'
    raise _NoFit('not enough %s pages for %d MiB (pages on the host node: %s)'
                 % (describe_page(request), gcell.memory_mb, free))


def _pick_cpus(count, hcell, policy, state):
    """(host CPUs in pinning order, guest threads per core, CPUs taken)."""
    cores = hcell.cores()
    if policy == THREAD_ISOLATE:
        # A whole core per vCPU; its other threads stay idle.
        free = [core for core in cores if not core & state.taken_cpus]
        if len(free) < count:
            raise _NoFit('isolate needs %d cores with every thread free, '
                         'there are %d' % (count, len(free)))
        chosen = free[:count]
        return [min(core) for core in chosen], 1, frozenset().union(*chosen)
    if policy == THREAD_REQUIRE:
        width = max((len(core) for core in cores), default=1)
        if width < 2:
            raise _NoFit('require needs SMT thread siblings, there are none')
        free = [core for core in cores
                if len(core) == width and not core & state.taken_cpus]
        needed = -(-count // width)
        if len(free) < needed:
            raise _NoFit('require needs %d free cores of %d threads, there '
                         'are %d' % (needed, width, len(free)))
        chosen = free[:needed]
        cpus = [cpu for core in chosen for cpu in sorted(core)][:count]
        # The guest only sees SMT when its vCPUs fill whole cores.
        threads = width if count % width == 0 else 1
        return cpus, threads, frozenset().union(*chosen)
    # prefer (or unset): take the cores with the most free threads first
    # so one guest's vCPUs share cores and whole cores stay for others.
    free_cores = sorted((core - state.taken_cpus for core in cores),
                        key=lambda c: (-len(c), min(c, default=0)))
    cpus = [cpu for core in free_cores for cpu in sorted(core)][:count]
    if len(cpus) < count:
        raise _NoFit('%d pinned vCPU(s) need as many free host CPUs, there '
                     'are %d' % (count, len(cpus)))
    return cpus, 1, frozenset(cpus)


def _fit_cell(topology, gcell, hcell, state):
    """(CellPlacement, host CPUs it takes) or _NoFit."""
    size = _pick_page_size(topology.page_size, gcell, hcell, state)
    if not topology.dedicated:
        return CellPlacement(gcell.id, hcell.id, hcell.cpus, size), set()
    cpus, threads, taken = _pick_cpus(len(gcell.cpus), hcell,
                                      topology.thread_policy, state)
    pinning = tuple(zip(sorted(gcell.cpus), cpus))
    return CellPlacement(gcell.id, hcell.id, frozenset(cpus), size, pinning,
                         threads), taken


def _describe_request(topology, gcell):
    what = '%d vCPU(s), %d MiB' % (len(gcell.cpus), gcell.memory_mb)
    if topology.dedicated:
        what += ', pinned, thread policy %s' % (topology.thread_policy or
                                                THREAD_PREFER)
    if topology.page_size not in (None, PAGE_SMALL):
        what += ', %s pages' % describe_page(topology.page_size)
    return what


def fit_guest_to_host(topology, host_cells, pinned_cpus=frozenset()):
    """Place each guest NUMA node on a host node, pinning if dedicated.

    Host nodes not used yet are tried first (upstream's rule: one guest
    node per host node).  Unlike upstream, a host with fewer nodes than
    the guest still fits it by sharing nodes, as long as CPUs, memory and
    pages suffice: the guest sees its topology, only locality is lost.
    ``pinned_cpus`` are host CPUs other guests own.  Raises Invalid
    naming what did not fit and why, per host node.
    """
    if not topology.cells:
        return ()
    if not host_cells:
        raise _invalid('the host reports no NUMA topology to place the '
                       'guest on')
    state = _HostState(host_cells, pinned_cpus)
    used = set()
    placements = []
    for gcell in topology.cells:
        reasons = []
        for hcell in sorted(host_cells, key=lambda c: (c.id in used, c.id)):
            try:
                placement, taken = _fit_cell(topology, gcell, hcell, state)
            except _NoFit as exc:
                reasons.append('host node %d: %s' % (hcell.id, exc.args[0]))
                continue
            state.take(gcell, placement, taken)
            used.add(hcell.id)
            placements.append(placement)
            break
        else:
            raise _invalid('guest NUMA node %d (%s) fits on no host NUMA '
                           'node: %s', gcell.id,
                           _describe_request(topology, gcell),
                           '; '.join(reasons))
    return tuple(placements)

"""Host/guest CPU set helpers shared by the driver and the XML classes."""

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

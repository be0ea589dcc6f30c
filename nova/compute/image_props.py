"""Boot-time image property overrides: checked, merged and parsed once per request."""

import collections
import fnmatch

from nova import exception
from nova.objects import image_meta

# Keys that describe one NUMA topology together; overriding any of them
# replaces the image's whole topology, since per-node values of the old
# topology are meaningless for a new node count.
_NUMA_FAMILY = ('hw_numa_nodes', 'hw_numa_cpus.*', 'hw_numa_mem.*')


class ImagePropertyOverrideForbidden(exception.Forbidden):
    msg_fmt = ("Image property %(key)s may not be overridden at boot in this cloud "
               "(see [api] image_props_override_allowlist/denylist).")


class TooManyOverrides(exception.Invalid):
    msg_fmt = "image_props_override has %(count)d keys; at most %(limit)d are allowed."


# What applying overrides gives the rest of a request: the internal-form image
# whose properties have them on top (canonical names), the overrides as applied
# (canonical names, the values given), and the merged properties parsed.
Overridden = collections.namedtuple('Overridden', 'image overrides props')


def _matches(key, patterns):
    return any(fnmatch.fnmatchcase(key, pattern) for pattern in patterns)


def canonical(key):
    """The field name of a property key (legacy aliases resolved)."""
    return image_meta.LEGACY_ALIASES.get(key, key)


_canonical = canonical


def _in_numa_family(key):
    return _matches(key, _NUMA_FAMILY)


def _kept(image_props, canonical_keys):
    """The image's properties an override does not replace, under the names the image used.

    Overridden keys go whatever name (canonical or legacy alias) the image
    stored them under; overriding any NUMA key drops the image's topology.
    """
    drop_numa = any(_in_numa_family(k) for k in canonical_keys)
    kept = {}
    for key, value in image_props.items():
        canonical = _canonical(key)
        if canonical not in canonical_keys and not (drop_numa and _in_numa_family(canonical)):
            kept[key] = value
    return kept


def _check_lists(conf, overrides):
    """403 for a key the operator's lists refuse, under its given or canonical name."""
    allow = conf.api.image_props_override_allowlist
    deny = conf.api.image_props_override_denylist
    for key in sorted(overrides):
        names = {key, _canonical(key)}
        if any(_matches(name, deny) for name in names):
            raise ImagePropertyOverrideForbidden(key=key)
        if allow and not any(_matches(name, allow) for name in names):
            raise ImagePropertyOverrideForbidden(key=key)


def _apply(image, overrides, strict):
    applied = {_canonical(key): value for key, value in overrides.items()}
    kept = _kept(image.get('properties') or {}, set(applied))
    # The one parse: the overrides under the names given, so that an error
    # names the key the user sent; the image's own keys leniently (images
    # carry custom properties).
    props = image_meta.ImageMetaProps.from_dict({**kept, **overrides},
                                                strict=set(overrides) if strict else False)
    return Overridden(dict(image, properties={**kept, **applied}), applied, props)


def apply_checked(conf, image, overrides):
    """A user's overrides checked, then put on top of ``image`` (internal form): Overridden.

    The checks come in the order a user sees their errors: the count, each
    value (400), each key's name and value against the property vocabulary
    (400), then the operator's allow and deny lists (403).
    """
    overrides = dict(overrides or {})
    if len(overrides) > conf.api.image_props_override_max_keys:
        raise TooManyOverrides(count=len(overrides),
                               limit=conf.api.image_props_override_max_keys)
    image_meta.check_user_values(overrides)
    result = _apply(image, overrides, strict=True)
    _check_lists(conf, overrides)
    return result


def apply_accepted(image, overrides):
    """Overrides accepted before (a server's own, on rebuild) put on top of ``image``."""
    return _apply(image, dict(overrides or {}), strict=False)

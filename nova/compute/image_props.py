"""Boot-time image property overrides: validation against config, and the ONE merge."""

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


def _matches(key, patterns):
    return any(fnmatch.fnmatchcase(key, pattern) for pattern in patterns)


def _names(key):
    """The key as given plus its canonical name (deny lists may use either)."""
    canonical = image_meta.LEGACY_ALIASES.get(key, key)
    return {key, canonical}


def validate_overrides(conf, overrides):
    """Check user overrides; return them with canonical names and string values.

    Order matters for the error a user sees: size, then each key's name and
    value (400), then the operator's allow/deny lists (403).
    """
    if len(overrides) > conf.api.image_props_override_max_keys:
        raise TooManyOverrides(count=len(overrides),
                               limit=conf.api.image_props_override_max_keys)
    canonical = image_meta.normalize_props(overrides, strict=True)
    allow = conf.api.image_props_override_allowlist
    deny = conf.api.image_props_override_denylist
    for key in sorted(overrides):
        names = _names(key)
        if any(_matches(name, deny) for name in names):
            raise ImagePropertyOverrideForbidden(key=key)
        if allow and not any(_matches(name, allow) for name in names):
            raise ImagePropertyOverrideForbidden(key=key)
    return canonical


def _in_numa_family(key):
    return _matches(key, _NUMA_FAMILY)


def merge(image_props, overrides):
    """Image properties, then the overrides on top; both may use alias names.

    Returns a new dict. Overridden keys replace the image's value whatever
    name (canonical or legacy alias) the image stored it under.
    """
    if not overrides:
        return dict(image_props)
    canonical_overrides = {image_meta.LEGACY_ALIASES.get(k, k) for k in overrides}
    drop_numa = any(_in_numa_family(k) for k in canonical_overrides)
    merged = {}
    for key, value in image_props.items():
        canonical = image_meta.LEGACY_ALIASES.get(key, key)
        if canonical in canonical_overrides or (drop_numa and _in_numa_family(canonical)):
            continue
        merged[key] = value
    merged.update({image_meta.LEGACY_ALIASES.get(k, k): v for k, v in overrides.items()})
    return merged


def effective_image(image, overrides):
    """An internal-form image dict whose properties have the overrides applied."""
    result = dict(image)
    result['properties'] = merge(image.get('properties') or {}, overrides)
    return result

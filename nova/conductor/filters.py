"""Host filters over the effective image properties (after boot-time overrides)."""

# An override that no host can satisfy must fail scheduling cleanly with
# NoValidHost, not boot a guest that ignores it.


def _prop(props, *names):
    for name in names:
        if props.get(name):
            return str(props[name])
    return None


def image_props_filter(node, image_props, flavor):
    """True when ``node`` can honour the image's hardware requests."""
    caps = node.get('capabilities') or {}
    arch = _prop(image_props, 'hw_architecture', 'architecture')
    if arch and caps.get('arch') and arch != caps['arch']:
        return False
    hv_type = _prop(image_props, 'img_hv_type', 'hypervisor_type')
    if hv_type and caps.get('hypervisor_type') and \
            hv_type.lower() != caps['hypervisor_type'].lower():
        return False
    cpu_policy = _prop(image_props, 'hw_cpu_policy') or \
        (flavor.get('extra_specs') or {}).get('hw:cpu_policy')
    if cpu_policy == 'dedicated' and flavor['vcpus'] > caps.get('cpus', flavor['vcpus']):
        return False
    page_size = _prop(image_props, 'hw_mem_page_size') or \
        (flavor.get('extra_specs') or {}).get('hw:mem_page_size')
    if page_size and page_size not in ('small', 'any') and caps.get('hugepages') is False:
        return False
    return True

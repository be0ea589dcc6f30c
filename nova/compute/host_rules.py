"""Static host rules the API applies before accepting a request (no driver imports)."""

from nova import exception
from nova.db import api as db_api
from nova.virt import disk_buses


def check_buses_somewhere(conf, db, image):
    """Invalid (400) when no live compute host could attach the image's disks.

    Each host reports its virt type and default machine type in its node
    record; a bus that no reporting host offers (``hw_disk_bus=xen`` on
    qemu/kvm, ``ide`` on q35) would otherwise be accepted and fail on the
    host. Hosts that report nothing are not judged.
    """
    props = image.get('properties') or {}
    if not any(props.get(p) for p in disk_buses.BUS_PROPERTY.values()):
        return
    up_since = db_api.utcnow_minus(conf.service_down_time)
    first_error = None
    for node in db.compute_nodes_with_room(0, 0, 0, up_since):
        caps = node.get('capabilities') or {}
        if not caps.get('virt_type'):
            continue
        try:
            disk_buses.check_image_buses(caps['virt_type'], props, caps.get('machine_type'))
            return
        except exception.Invalid as exc:
            first_error = first_error or exc
    if first_error is not None:
        raise exception.Invalid(reason='No compute host can honour the image properties: %s'
                                % first_error.format_message())

"""What an instance of a flavor consumes on its host: one rule for scheduler and compute."""

import math


def requested_resources(flavor):
    """(vcpus, memory_mb, disk_gb) an instance of ``flavor`` consumes on a host."""
    disk = flavor['root_gb'] + flavor['ephemeral_gb'] + math.ceil(flavor['swap'] / 1024)
    return flavor['vcpus'], flavor['memory_mb'], disk

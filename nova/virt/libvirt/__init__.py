"""The libvirt driver: domain XML, disk mapping, guests and volumes."""

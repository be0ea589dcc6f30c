"""Nova-style compute service: an OpenStack Compute API v2.1 with a libvirt driver."""

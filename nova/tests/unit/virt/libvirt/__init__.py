"""Unit tests for the libvirt driver (libvirt test:///default, real qemu-img)."""

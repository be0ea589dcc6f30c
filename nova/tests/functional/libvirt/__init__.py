"""Functional tests booting real QEMU guests through libvirtd."""

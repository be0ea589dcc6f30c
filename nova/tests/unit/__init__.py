"""Unit tests: one process, libvirt test:///default, SQLite."""

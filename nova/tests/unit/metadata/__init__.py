"""Unit tests of what a guest is told (nova.metadata)."""

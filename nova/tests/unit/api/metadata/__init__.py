"""Unit tests of the metadata API (nova.api.metadata)."""

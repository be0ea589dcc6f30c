"""Unit tests of the compute layer."""

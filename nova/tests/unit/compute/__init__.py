"""Unit tests of the compute package."""

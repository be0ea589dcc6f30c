"""Unit tests of nova.network."""

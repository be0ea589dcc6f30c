"""Unit tests of the API layer."""

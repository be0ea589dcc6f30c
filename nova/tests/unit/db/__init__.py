"""Unit tests of the database layer."""

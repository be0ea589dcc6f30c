"""Unit tests for the versioned objects and their field types."""

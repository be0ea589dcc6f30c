"""Unit tests for the image helpers."""

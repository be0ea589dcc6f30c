"""Unit tests of the notifications package."""

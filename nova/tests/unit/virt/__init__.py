"""Unit tests for the virt drivers."""

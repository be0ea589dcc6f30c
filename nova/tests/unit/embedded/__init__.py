"""Unit tests for the embedded image and volume endpoints."""

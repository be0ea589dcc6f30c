"""Embedded image endpoint: a file-backed subset of the Glance v2 API."""

"""Embedded volume endpoint: a file-backed subset of the Cinder v3 API."""

"""Functional tests: the real openstack CLI and SDK against a running service."""

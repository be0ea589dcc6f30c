"""Compute: the API rules, the RPC API and the manager that drives the virt driver."""

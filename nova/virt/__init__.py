"""Hypervisor drivers behind the ComputeDriver interface."""

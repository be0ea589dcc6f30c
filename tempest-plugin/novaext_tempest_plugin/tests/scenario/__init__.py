"""Scenario tests: real guests, their console and (white-box) domain XML."""

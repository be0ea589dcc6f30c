"""Wire-compatibility tests of the compute API against tempest's response schemas."""

"""Tests of the embedded network (Neutron v2.0 subset) endpoint."""

"""Tests of the Cinder v3 client."""

"""Tests of the client distribution."""

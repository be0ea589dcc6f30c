"""Tests of the plugin (tempest discovers them through load_tests)."""

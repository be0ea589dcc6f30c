"""Tempest plugin: stable-device rescue and image property overrides."""

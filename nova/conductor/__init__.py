"""The conductor: scheduling and build orchestration."""

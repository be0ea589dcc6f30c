"""Database models, access and migrations."""

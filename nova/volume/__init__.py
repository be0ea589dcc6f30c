"""The volume service (Cinder v3) client."""

"""The all-in-one's embedded image (Glance v2) and volume (Cinder v3) endpoints."""

"""What a guest is told about itself: one builder for the config drive and the metadata API."""

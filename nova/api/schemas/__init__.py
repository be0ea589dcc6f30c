"""Request JSON schemas, one module per resource."""

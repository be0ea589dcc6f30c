"""Response bodies, one module per resource."""

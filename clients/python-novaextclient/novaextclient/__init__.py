"""Client support for this compute service's extensions to the Compute API."""

"""openstackclient extensions shipped with the service (cliff command hooks)."""

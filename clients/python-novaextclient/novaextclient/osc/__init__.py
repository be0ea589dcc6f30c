"""openstackclient command hooks (cliff) for image property overrides."""

"""Console-script entry points."""

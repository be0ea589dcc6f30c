"""The test suites (unit and functional) and their fixtures."""

"""API tests: response schemas and refusals at 2.87, 2.105 and 2.106."""

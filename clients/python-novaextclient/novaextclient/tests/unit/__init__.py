"""Unit tests: argument parsing, negotiation and the body on the wire (recording server)."""

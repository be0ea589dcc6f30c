"""Tests of the embedded volume endpoint (Cinder v3 subset) over real HTTP."""

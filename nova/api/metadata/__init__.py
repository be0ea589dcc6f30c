"""The metadata API: what a guest reads from 169.254.169.254, OpenStack and EC2 formats."""

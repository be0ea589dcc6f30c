#!/usr/bin/env python3
"""Write doc/source/admin/guest-properties.rst from nova/virt/property_registry.py."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from nova.virt import property_table  # noqa: E402

with open(os.path.join(ROOT, property_table.PAGE), 'w') as f:
    f.write(property_table.render())

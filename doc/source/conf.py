"""Sphinx configuration of the service documentation (install, admin, contributor)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '_extensions'))

extensions = [
    'oslo_config.sphinxext',
    'oslo_policy.sphinxext',
    'nova_microversions',
]

# Sphinx's default theme: openstackdocstheme brands every page as OpenStack's
# and loads a third-party analytics script.
html_theme = 'alabaster'

project = 'nova'
copyright = 'The Nova-style compute team'
master_doc = 'index'
source_suffix = {'.rst': 'restructuredtext'}
exclude_patterns = ['_extensions']
pygments_style = 'sphinx'

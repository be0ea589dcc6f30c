"""Sphinx configuration of the release notes (reno)."""

extensions = [
    'reno.sphinxext',
]

# Sphinx's default theme: openstackdocstheme brands every page as OpenStack's
# and loads a third-party analytics script.
html_theme = 'alabaster'

project = 'nova Release Notes'
copyright = 'The Nova-style compute team'
master_doc = 'index'
source_suffix = {'.rst': 'restructuredtext'}
exclude_patterns = []
pygments_style = 'sphinx'
version = ''
release = ''

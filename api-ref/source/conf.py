"""Sphinx configuration of the Compute API reference (os-api-ref)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'doc', 'source', '_extensions'))

extensions = [
    'os_api_ref',
    'nova_microversions',
]

project = 'Compute API Reference'
copyright = 'The Nova-style compute team'
master_doc = 'index'
source_suffix = {'.rst': 'restructuredtext'}
pygments_style = 'sphinx'

# Sphinx's default theme: openstackdocstheme brands every page as OpenStack's
# and loads a third-party analytics script. os-api-ref's own script needs
# jQuery and Bootstrap, which this theme lacks, so _static/api-ref.js does
# the one thing the page needs from it: the microversion selector.
html_theme = 'alabaster'
html_theme_options = {'page_width': '1180px', 'sidebar_width': '260px'}
html_sidebars = {'**': ['about.html', 'searchfield.html', 'localtoc.html']}
html_static_path = ['_static']
html_css_files = ['api-ref.css']
html_js_files = ['api-ref.js']

# Checked at build start: every min_version/max_version must be a
# microversion of nova/api/microversion.py (see nova_microversions).
nova_parameters_file = 'parameters.yaml'

# os-api-ref's selector range is filled in from nova/api/microversion.py by
# the nova_microversions extension; these are only fallbacks.
os_api_ref_min_microversion = '2.1'
os_api_ref_max_microversion = '2.1'


def _drop_api_site_js(app):
    def wanted(js):
        return not str(getattr(js, 'filename', js)).endswith('api-site.js')
    app.registry.js_files = [(name, attrs) for name, attrs in app.registry.js_files
                             if wanted(name)]
    if hasattr(app.builder, '_js_files'):
        app.builder._js_files = [js for js in app.builder._js_files if wanted(js)]


def setup(app):
    # After os_api_ref's own builder-inited hook (priority 500) added it.
    app.connect('builder-inited', _drop_api_site_js, priority=900)

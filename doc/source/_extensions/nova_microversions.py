"""Sphinx extension: microversion tables read from nova/api/microversion.py.

The version list in ``nova/api/microversion.py`` is the single source of truth
for the compute API's microversions. This extension reads that file with
:mod:`ast` (without importing the ``nova`` package, so a docs build needs none
of the service's dependencies) and provides:

``.. nova-microversion-history::``
    A table of every microversion, oldest first, with its one-line summary.

``.. nova-microversion-thresholds::``
    A table of the named thresholds (``LOCKED = (2, 9)`` ...) that handlers
    and views branch on.

``|min_microversion|`` and ``|max_microversion|``
    Substitutions, added to ``rst_epilog``.

It also checks the api-ref ``parameters.yaml`` named by the
``nova_parameters_file`` config value (relative to the source directory):
every ``min_version`` and ``max_version`` must be a microversion in the list.
A mismatch is a Sphinx warning, so ``sphinx-build -W`` fails on it.
"""

import ast
import os

import yaml
from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.util import logging

LOG = logging.getLogger(__name__)

_HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SOURCE = os.path.abspath(
    os.path.join(_HERE, '..', '..', '..', 'nova', 'api', 'microversion.py'))


def _literal_assignments(path):
    """Module-level ``NAME = <literal>`` assignments of ``path``, in order."""
    with open(path, encoding='utf-8') as handle:
        tree = ast.parse(handle.read(), filename=path)
    found = []
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            continue
        try:
            value = ast.literal_eval(node.value)
        except ValueError:
            continue
        found.append((node.targets[0].id, value))
    return found


def load(path=DEFAULT_SOURCE):
    """(versions, thresholds) from the microversion module at ``path``.

    ``versions`` is the VERSIONS list of (version, summary) pairs;
    ``thresholds`` is a list of (name, (major, minor)) pairs.
    """
    assignments = _literal_assignments(path)
    versions = dict(assignments).get('VERSIONS')
    if not versions:
        raise RuntimeError('no VERSIONS list in %s' % path)
    thresholds = [(name, value) for name, value in assignments
                  if name.isupper() and isinstance(value, tuple) and len(value) == 2
                  and all(isinstance(v, int) for v in value)]
    return list(versions), thresholds


def _parse(text):
    major, minor = str(text).split('.')
    return int(major), int(minor)


def _table(headers, rows, widths):
    table = nodes.table()
    group = nodes.tgroup(cols=len(headers))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    group += head
    head += _row(headers)
    body = nodes.tbody()
    group += body
    for cells in rows:
        body += _row(cells)
    return table


def _row(cells):
    row = nodes.row()
    for cell in cells:
        entry = nodes.entry()
        if isinstance(cell, nodes.Node):
            entry += nodes.paragraph('', '', cell)
        else:
            entry += nodes.paragraph(text=str(cell))
        row += entry
    return row


class _Base(Directive):
    has_content = False

    def _data(self):
        env = self.state.document.settings.env
        path = env.config.nova_microversion_source
        env.note_dependency(path)
        return load(path)


class HistoryDirective(_Base):
    """Every microversion with its summary, oldest first."""

    def run(self):
        versions, _thresholds = self._data()
        rows = [(nodes.literal(text=version), summary) for version, summary in versions]
        return [_table(['Microversion', 'Change'], rows, [15, 85])]


class ThresholdsDirective(_Base):
    """The named thresholds of microversion.py and whether they are served."""

    def run(self):
        versions, thresholds = self._data()
        newest = _parse(versions[-1][0])
        rows = []
        for name, value in thresholds:
            served = 'yes' if value <= newest else 'not yet (above the maximum)'
            rows.append((nodes.literal(text=name), '%d.%d' % value, served))
        return [_table(['Name', 'Microversion', 'Served'], rows, [40, 20, 40])]


def _check_parameters(app):
    name = app.config.nova_parameters_file
    if not name:
        return
    path = os.path.join(app.srcdir, name)
    versions, _thresholds = load(app.config.nova_microversion_source)
    known = {v for v, _summary in versions}
    with open(path, encoding='utf-8') as handle:
        params = yaml.safe_load(handle) or {}
    for key, spec in params.items():
        for field in ('min_version', 'max_version'):
            value = spec.get(field)
            if value is None:
                continue
            if not isinstance(value, str):
                LOG.warning('%s: %s of %s must be a quoted string, got %r',
                            name, field, key, value)
            elif value not in known:
                LOG.warning('%s: %s %s of %s is not a microversion in %s',
                            name, field, value, key,
                            os.path.relpath(app.config.nova_microversion_source))


def _config_inited(app, config):
    versions, _thresholds = load(config.nova_microversion_source)
    epilog = ('\n.. |min_microversion| replace:: %s\n'
              '.. |max_microversion| replace:: %s\n' % (versions[0][0], versions[-1][0]))
    config.rst_epilog = (config.rst_epilog or '') + epilog
    # os-api-ref's microversion selector follows the version list too.
    if 'os_api_ref_max_microversion' in config:
        config.os_api_ref_min_microversion = versions[0][0]
        config.os_api_ref_max_microversion = versions[-1][0]


def setup(app):
    app.add_config_value('nova_microversion_source', DEFAULT_SOURCE, 'env')
    app.add_config_value('nova_parameters_file', '', 'env')
    app.add_directive('nova-microversion-history', HistoryDirective)
    app.add_directive('nova-microversion-thresholds', ThresholdsDirective)
    app.connect('config-inited', _config_inited)
    app.connect('builder-inited', _check_parameters)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}

"""The property registry as the reStructuredText page of the admin guide (one row per key)."""

from nova.virt import property_registry as reg

PAGE = 'doc/source/admin/guest-properties.rst'

_HEAD = """\
=====================================================
Image properties and flavor extra specs in the guest
=====================================================

.. This page is generated from nova/virt/property_registry.py by
   tools/gen-property-table.py; a unit test fails when they differ.

Every image property (``ImageMetaProps``, also settable per server with
``image_props_override`` at 2.105) and every flavor extra spec the API
validates has one row: what the libvirt driver does with it and the domain
XML it produces, or why it is refused. A refused key set on a flavor or an
image fails the server create with 400 and that reason; a property only a
compute host can satisfy (a machine type, an emulated architecture, a vTPM,
SEV, secure-boot firmware) is checked against the hosts' node records
before the 202; what only the host can know fails the build with a fault.

Precedence between flavor and image follows upstream Nova: *unique* keys
may be set in both only to the same value; the image wins for the watchdog
action and the boot menu; the image may ask for at most the flavor's serial
port count and may only lower the flavor's CPU topology limits.

What a server was given at boot, flavor or override, stays in its domain
through rescue (the rescue guest is built from the same properties, plus
any rescue overrides of 2.106), unrescue, hard reboot, resize (a new
flavor's limits refit the topology), cold migration and shelve/unshelve:
``nova/tests/functional/test_overrides_lifecycle.py`` checks each of them on
one server; a vTPM's state survives stop/start, rescue and cold migration
and goes with the server's delete (``test_guest_breadth.py``).

Status: %s.

"""


def _cell(text):
    return (text or '').replace('|', '/').replace('\\n', ' ') or '-'


def _table(kind):
    rows = [r for r in reg.ROWS if r.kind == kind]
    lines = ['.. list-table::', '   :header-rows: 1', '   :widths: 22 12 36 30', '',
             '   * - %s' % ('Image property' if kind == 'image' else 'Extra spec'),
             '     - Status', '     - What it does here (or why not)', '     - Domain XML']
    for row in sorted(rows, key=lambda r: r.name):
        lines.append('   * - ``%s``' % row.name)
        lines.append('     - %s' % row.status)
        does = row.does + (' Tested in: %s.' % row.tests if row.tests else '')
        lines.append('     - %s' % _cell(does))
        lines.append('     - %s' % ('``%s``' % row.xml if row.xml else '-'))
    return '\n'.join(lines) + '\n'


def render():
    counts = reg.counts()
    summary = '; '.join('%s: %s' % (kind, ', '.join(
        '%d %s' % (n, status) for status, n in sorted(counts[kind].items())))
        for kind in ('image', 'flavor'))
    return (_HEAD % summary + 'Image properties\n----------------\n\n' + _table('image') +
            '\nFlavor extra specs\n------------------\n\n' + _table('flavor'))

"""libvirt's domain schema check in a child process, for libvirt's in-process test driver."""

# VIR_DOMAIN_DEFINE_VALIDATE makes libvirt parse its RelaxNG schema afresh
# on every define. With qemu:///system that happens in libvirtd; with
# test:///default libvirt runs inside the service, and the parse (freed
# again afterwards) raises the service's peak resident memory by about
# 8.5 MB. xmllint checks the same document against the same schema files
# with the same library (libxml2) in a short-lived child instead, in about
# the same time (12 to 14 ms); without xmllint or the schema files the
# caller falls back to libvirt's own check.

import os
import shutil
import subprocess

# libvirt's installed schemas: where VIR_DOMAIN_DEFINE_VALIDATE reads them.
SCHEMA_DIRS = ('/usr/share/libvirt/schemas', '/usr/local/share/libvirt/schemas')
TIMEOUT = 60
_PREFIX = 'Relax-NG validity error : '


def domain_schema():
    """(xmllint, domain.rng) when both are installed, else None."""
    xmllint = shutil.which('xmllint')
    if not xmllint:
        return None
    for directory in SCHEMA_DIRS:
        schema = os.path.join(directory, 'domain.rng')
        if os.path.exists(schema):
            return xmllint, schema
    return None


def errors(xml, checker):
    """None if ``xml`` validates, else a message shaped like libvirt's."""
    xmllint, schema = checker
    proc = subprocess.run([xmllint, '--noout', '--relaxng', schema, '-'],
                          input=xml.encode(), capture_output=True, timeout=TIMEOUT,
                          check=False)
    if proc.returncode == 0:
        return None
    lines = []
    for line in proc.stderr.decode(errors='replace').splitlines():
        if _PREFIX in line:
            lines.append(line.split(_PREFIX, 1)[1])
        elif line and not line.startswith('-') and 'fails to validate' not in line:
            lines.append(line)
    return ('XML document failed to validate against schema: Unable to validate doc '
            'against %s\n%s' % (schema, '\n'.join(lines)))

"""White-box reads of a guest's libvirt domain XML, when [novaext] libvirt_uri is set."""

import subprocess
import xml.etree.ElementTree as ElementTree

from tempest import config

CONF = config.CONF


def enabled():
    return bool(CONF.novaext.libvirt_uri)


def domain_xml(server_id):
    """The live domain XML of the server's guest (libvirt names it by the server UUID)."""
    proc = subprocess.run([CONF.novaext.virsh, '-r', '-c', CONF.novaext.libvirt_uri,
                           'dumpxml', server_id], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise AssertionError('virsh dumpxml %s failed: %s' % (server_id, proc.stderr))
    return proc.stdout


def disks(xml):
    """The domain's disks in XML order: dev, bus, device, boot, source, address."""
    root = ElementTree.fromstring(xml)
    found = []
    for disk in root.iterfind('devices/disk'):
        target = disk.find('target')
        boot = disk.find('boot')
        address = disk.find('address')
        source = disk.find('source')
        found.append({'dev': target.get('dev'), 'bus': target.get('bus'),
                      'device': disk.get('device'),
                      'boot': boot.get('order') if boot is not None else None,
                      'source': source.get('file') if source is not None else None,
                      'address': tuple(sorted(address.attrib.items()))
                      if address is not None else None})
    return found


def machine_type(xml):
    return ElementTree.fromstring(xml).find('os/type').get('machine')


def numa_cells(xml):
    return len(ElementTree.fromstring(xml).findall('cpu/numa/cell'))


def kernel_cmdline(xml):
    node = ElementTree.fromstring(xml).find('os/cmdline')
    return node.text if node is not None else None

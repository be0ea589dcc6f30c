"""The domain schema check: in a child on test:///, libvirt's own check elsewhere."""

import libvirt
import pytest

from nova import exception
from nova.virt.libvirt import host as libvirt_host
from nova.virt.libvirt import schema_check

GOOD = ("<domain type='test'><name>%s</name><memory>65536</memory>"
        "<os><type>hvm</type></os><devices/></domain>")
# <bogus/> is not in libvirt's schema; libvirt itself would accept and drop it.
BAD = ("<domain type='test'><name>bad</name><memory>65536</memory>"
       "<os><type>hvm</type></os><devices><bogus/></devices></domain>")

needs_xmllint = pytest.mark.skipif(schema_check.domain_schema() is None,
                                   reason='xmllint or libvirt schemas not installed')


def _libvirt_message(xml):
    conn = libvirt.open('test:///default')
    try:
        conn.defineXMLFlags(xml, libvirt.VIR_DOMAIN_DEFINE_VALIDATE)
    except libvirt.libvirtError as exc:
        return exc.get_error_message()
    finally:
        conn.close()
    return None


@needs_xmllint
def test_child_check_gives_libvirts_verdict_and_message():
    checker = schema_check.domain_schema()
    assert schema_check.errors(GOOD % 'good', checker) is None
    message = schema_check.errors(BAD, checker)
    assert message == _libvirt_message(BAD).strip()
    assert 'Extra element devices in interleave' in message


@needs_xmllint
def test_test_driver_refuses_an_invalid_domain_without_defining_it():
    host = libvirt_host.Host('test:///default')
    assert host._schema_checker() is not None
    with pytest.raises(exception.HypervisorError,
                       match='defining the domain failed: XML document failed to '
                             'validate against schema'):
        host.define_guest(BAD)
    assert 'bad' not in host.list_instance_names()
    assert host.define_guest(GOOD % 'good-one').name == 'good-one'
    # A definition libvirt wrote itself is not checked again.
    assert host.define_guest(BAD.replace('bad', 'saved'), validate=False)


def test_other_drivers_keep_libvirts_own_check():
    assert libvirt_host.Host('qemu:///system')._schema_checker() is None

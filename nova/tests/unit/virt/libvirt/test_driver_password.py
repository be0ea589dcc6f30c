"""The password change's wait for the guest agent channel, on libvirt's live XML."""

import pytest

from nova.virt.libvirt import driver_password

CHANNEL = """<domain><devices>
  <channel type='spicevmc'>
    <target type='virtio' name='com.redhat.spice.0' state='connected'/></channel>
  <channel type='unix'><target type='virtio' name='org.qemu.guest_agent.0'%s/></channel>
</devices></domain>"""


class _Guest:
    """Live XML as libvirt gives it while a guest boots: one document per read."""

    def __init__(self, states):
        self.states = list(states)
        self.reads = 0

    def get_xml_desc(self):
        self.reads += 1
        state = self.states.pop(0) if len(self.states) > 1 else self.states[0]
        return CHANNEL % ('' if state is None else " state='%s'" % state)


@pytest.mark.parametrize('state', ['connected', 'disconnected', None])
def test_the_agent_channel_state_is_read_from_its_own_channel(state):
    assert driver_password.agent_channel_state(
        CHANNEL % ('' if state is None else " state='%s'" % state)) == state


def test_no_agent_channel_reads_as_no_state():
    assert driver_password.agent_channel_state('<domain><devices/></domain>') is None


def test_the_wait_ends_when_the_agent_connects(monkeypatch):
    monkeypatch.setattr(driver_password, 'AGENT_POLL_INTERVAL', 0.001)
    guest = _Guest(['disconnected', 'disconnected', 'connected'])
    assert driver_password.LibvirtPassword._wait_for_agent(guest, 5) is True
    assert guest.reads == 3


@pytest.mark.parametrize('state', ['connected', None])
def test_no_wait_when_connected_or_unknown(state):
    guest = _Guest([state])
    assert driver_password.LibvirtPassword._wait_for_agent(guest, 5) is True
    assert guest.reads == 1


def test_the_wait_gives_up_at_the_timeout(monkeypatch):
    monkeypatch.setattr(driver_password, 'AGENT_POLL_INTERVAL', 0.001)
    guest = _Guest(['disconnected'])
    assert driver_password.LibvirtPassword._wait_for_agent(guest, 0) is False
    assert guest.reads == 1

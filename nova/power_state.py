"""Guest power states as the hypervisor reports them (upstream Nova's values)."""

# Not libvirt's virDomainState: the numbers merely match it for the states
# Nova kept, which is what the API and the database store.
NOSTATE = 0x00
RUNNING = 0x01
PAUSED = 0x03
SHUTDOWN = 0x04  # powered off
CRASHED = 0x06
SUSPENDED = 0x07

STATE_MAP = {
    NOSTATE: 'pending',
    RUNNING: 'running',
    PAUSED: 'paused',
    SHUTDOWN: 'shutdown',
    CRASHED: 'crashed',
    SUSPENDED: 'suspended',
}

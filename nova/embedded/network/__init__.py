"""The all-in-one's embedded network endpoint: a Neutron v2.0 subset and its data plane.

What it serves, wire-compatible with Neutron 29 for these: the version
documents, ``/v2.0/extensions`` (only the extensions implemented, see
``discovery.EXTENSIONS``), networks, subnets (IPAM: gateway, allocation
pools, DHCP, DNS servers, host routes), ports (fixed IPs, MACs, device
ownership, ``binding:*``, port security, security groups, ``dns_name``),
security groups and their rules (every project's ``default`` group with
Neutron's rules, Neutron's validation and messages) and quotas, with
Neutron's filters, ``fields``, sorting and pagination, its default
policies (own resources plus shared networks; administrators see all) and
its ``NeutronError`` bodies. Records live in SQLite under
``$state_path/network``. There are no routers or floating IPs: the host
has an address on the guests' network (the subnet's gateway), so it
reaches every guest at its fixed IP.

Binding (``binding.py``): a port bound to any host gets
``binding:vif_type = "tap"`` and ``binding:vif_details = {"port_filter":
true, "connectivity": "l2", "bridge_name": <[aio] network_bridge>,
"mac_address": <host-side tap MAC>}``. The hypervisor driver creates the
tap ``tap<port id[:11]>`` with that MAC and MTU and hands it to the guest
as ``<interface type='ethernet'>`` with ``<target dev=... managed='no'/>``;
the data plane (``dataplane.py``) enslaves it to the bridge, filters it
(``port_filter``: the driver must not) and reports the port ACTIVE, which
sends Nova ``network-vif-plugged``. The libvirtd running the guests must
be in the data plane's network namespace.
"""

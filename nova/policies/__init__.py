"""Policy defaults in code; list_rules() feeds the enforcer and the sample generator."""

import itertools

from nova.policies import rule_checks

rule_checks.install()   # before the rules below are parsed

from nova.policies import (  # noqa: E402
    admin_actions,
    admin_hosts,
    assisted_volume_snapshots,
    base,
    consoles,
    evacuate,
    flavor_extras,
    flavors,
    keypairs,
    limits,
    live_migrate,
    networking,
    networks_proxy,
    quota_class_sets,
    quota_sets,
    resize_shelve,
    server_actions,
    server_external_events,
    server_groups,
    servers,
    usage,
    volumes_proxy,
)


def list_rules():
    return list(itertools.chain(base.list_rules(), servers.list_rules(),
                                flavors.list_rules(), server_actions.list_rules(),
                                keypairs.list_rules(), flavor_extras.list_rules(),
                                admin_hosts.list_rules(), quota_sets.list_rules(),
                                quota_class_sets.list_rules(), limits.list_rules(),
                                server_groups.list_rules(), admin_actions.list_rules(),
                                server_external_events.list_rules(), usage.list_rules(),
                                volumes_proxy.list_rules(), consoles.list_rules(),
                                networks_proxy.list_rules(), resize_shelve.list_rules(),
                                live_migrate.list_rules(), evacuate.list_rules(),
                                assisted_volume_snapshots.list_rules(),
                                networking.list_rules()))

"""The compute API version list: the single source of truth; max is the last entry."""

import re

# One entry per microversion, oldest first, with what it changed. Upstream
# Nova defined 2.1..2.104; entries above that are this project's own.
VERSIONS = [
    ('2.1', 'Initial version, equivalent to v2.0.'),
    ('2.2', 'Keypair type; 400 for invalid keypair names.'),
    ('2.3', 'Extended server attributes for admins (reservation_id, kernel_id...).'),
    ('2.4', 'Reserved flag on fixed IPs.'),
    ('2.5', 'Server list filter by ip6.'),
    ('2.6', 'Remote consoles API.'),
    ('2.7', 'Flavor access checks on public flavors.'),
    ('2.8', 'MKS remote consoles.'),
    ('2.9', 'Server "locked" attribute.'),
    ('2.10', 'Keypairs of other users for admins.'),
    ('2.11', 'Forced-down service state.'),
    ('2.12', 'VIF net_id.'),
    ('2.13', 'Server group project and user ids.'),
    ('2.14', 'Evacuate without onSharedStorage.'),
    ('2.15', 'Soft (anti-)affinity server group policies.'),
    ('2.16', 'Server host_status.'),
    ('2.17', 'Trigger crash dump action.'),
    ('2.18', 'Project id optional in URLs.'),
    ('2.19', 'Server description.'),
    ('2.20', 'Volume operations on shelved servers.'),
    ('2.21', 'Deleted instances in os-instance-actions.'),
    ('2.22', 'Force-complete live migration.'),
    ('2.23', 'Migration ids and types.'),
    ('2.24', 'Abort live migration.'),
    ('2.25', 'Live migrate block_migration auto.'),
    ('2.26', 'Server tags.'),
    ('2.27', 'Standard OpenStack-API-Version header.'),
    ('2.28', 'Hypervisor cpu_info as an object.'),
    ('2.29', 'Evacuate force flag.'),
    ('2.30', 'Live migrate force flag.'),
    ('2.31', 'Console connection info on serial ports.'),
    ('2.32', 'Device tags on create.'),
    ('2.33', 'Hypervisor list pagination.'),
    ('2.34', 'Asynchronous live migration pre-checks.'),
    ('2.35', 'Keypair list pagination.'),
    ('2.36', 'Proxy APIs to other services removed.'),
    ('2.37', 'Network "auto"/"none" and networks required on create.'),
    ('2.38', 'Server status filter validated.'),
    ('2.39', 'Image-metadata quotas removed from limits.'),
    ('2.40', 'Simple tenant usage pagination.'),
    ('2.41', 'Aggregate uuid.'),
    ('2.42', 'Device tags restored on create.'),
    ('2.43', 'os-hosts removed.'),
    ('2.44', 'Network actions on servers removed.'),
    ('2.45', 'createImage returns image_id in the body.'),
    ('2.46', 'Request ids of instance actions.'),
    ('2.47', 'Flavor embedded in server show.'),
    ('2.48', 'Standard server diagnostics.'),
    ('2.49', 'Tagged volume attach.'),
    ('2.50', 'Quota class server groups.'),
    ('2.51', 'volume-extended external events.'),
    ('2.52', 'Tags on server create.'),
    ('2.53', 'Service and hypervisor uuids.'),
    ('2.54', 'Keypair on rebuild.'),
    ('2.55', 'Flavor description.'),
    ('2.56', 'Cold migrate to a host.'),
    ('2.57', 'User data on rebuild; personality removed.'),
    ('2.58', 'Instance actions pagination and changes-since.'),
    ('2.59', 'Migrations pagination.'),
    ('2.60', 'Multiattach volumes.'),
    ('2.61', 'Flavor extra_specs in flavor responses.'),
    ('2.62', 'Host and hostId in instance action events.'),
    ('2.63', 'Trusted image certificates.'),
    ('2.64', 'Server group policy and rules.'),
    ('2.65', 'Abort queued live migrations.'),
    ('2.66', 'changes-before filter.'),
    ('2.67', 'volume_type in block_device_mapping_v2.'),
    ('2.68', 'Force evacuate/live-migrate removed.'),
    ('2.69', 'Partial results for down cells.'),
    ('2.70', 'Device tags in volume attachments and interfaces.'),
    ('2.71', 'server_groups in server show.'),
    ('2.72', 'Neutron ports with resource requests.'),
    ('2.73', 'Lock reason.'),
    ('2.74', 'host and hypervisor_hostname on create.'),
    ('2.75', 'Full server body on update and rebuild; strict query params.'),
    ('2.76', 'power-update external event.'),
    ('2.77', 'Availability zone on unshelve.'),
    ('2.78', 'Server topology.'),
    ('2.79', 'delete_on_termination on volume attach.'),
    ('2.80', 'Migrations user_id/project_id filters.'),
    ('2.81', 'Image cache pre-caching on aggregates.'),
    ('2.82', 'accelerator-request-bound external event.'),
    ('2.83', 'More server list filters for non-admins.'),
    ('2.84', 'Instance action event details.'),
    ('2.85', 'Update delete_on_termination of a volume attachment.'),
    ('2.86', 'Flavor extra specs validation.'),
    ('2.87', 'Rescue of volume-backed servers with stable-device rescue images.'),
    ('2.88', 'Hypervisor statistics fields removed.'),
    ('2.89', 'attachment_id and bdm_uuid in volume attachments.'),
    ('2.90', 'Hostname update and display for users.'),
    ('2.91', 'Unshelve to a host.'),
    ('2.92', 'Keypair import only.'),
    ('2.93', 'Rebuild of volume-backed servers.'),
    ('2.94', 'FQDN hostnames.'),
    ('2.95', 'Evacuate to STOPPED.'),
    ('2.96', 'pinned_availability_zone in server show.'),
    ('2.97', 'Shares attachments.'),
    ('2.98', 'Image properties in server show.'),
    ('2.99', 'Spice direct consoles.'),
    ('2.100', 'scheduler_hints in server show.'),
    ('2.101', 'Asynchronous volume attach.'),
    ('2.102', 'Hypervisor list filtering.'),
    ('2.103', 'Console type list.'),
    ('2.104', 'pinned_availability_zone in server update: unpin (null) or pin to the '
              'current zone.'),
    # Our own microversions start here.
    ('2.105', 'image_props_override on server create; shown in server show/detail.'),
    ('2.106', 'image_props_override on the rescue action, for that rescue only.'),
]

MIN_VERSION = VERSIONS[0][0]
MAX_VERSION = VERSIONS[-1][0]

# Named thresholds that handlers branch on.
EXTENDED_ATTRS = (2, 3)
IP6_FILTER = (2, 5)              # the server list's ip6 filter, for every user
LOCKED = (2, 9)
HOST_STATUS = (2, 16)
DESCRIPTION = (2, 19)
TAGS = (2, 26)
PROXY_APIS_LAST = (2, 35)
NETWORKS_REQUIRED = (2, 37)
# 2.38: an unknown status in a server list query is a 400 (before: an empty list).
INVALID_STATUS_REJECTED = (2, 38)
USAGE_PAGINATION = (2, 40)
IMAGE_ID_IN_BODY = (2, 45)
FLAVOR_EMBEDDED = (2, 47)
STANDARD_DIAGNOSTICS = (2, 48)
MIGRATIONS_PAGINATION = (2, 59)
MULTIATTACH = (2, 60)            # multiattach volumes may be attached and booted from
KEYPAIR_ON_REBUILD = (2, 54)
FLAVOR_DESCRIPTION = (2, 55)
USER_DATA_ON_REBUILD = (2, 57)
FLAVOR_EXTRA_SPECS = (2, 61)
TRUSTED_CERTS = (2, 63)
SERVER_GROUPS = (2, 71)
SERVER_GROUP_OWNER = (2, 13)
SOFT_AFFINITY = (2, 15)
SERVER_GROUP_POLICY = (2, 64)
LOCKED_REASON = (2, 73)
FULL_UPDATE_BODY = (2, 75)
HOSTNAME_FOR_USERS = (2, 90)
PINNED_AZ = (2, 96)
PINNED_AZ_UPDATE = (2, 104)
RESCUE_VOLUME_BACKED = (2, 87)
IMAGE_PROPERTIES = (2, 98)
SCHEDULER_HINTS = (2, 100)
IMAGE_PROPS_OVERRIDE = (2, 105)
RESCUE_PROPS_OVERRIDE = (2, 106)
KEYPAIR_TYPE = (2, 2)
FLAVOR_ACCESS_PUBLIC_CHECK = (2, 7)
KEYPAIR_USER_ID = (2, 10)
SERVICE_FORCED_DOWN = (2, 11)
HYPERVISOR_CPU_INFO_OBJECT = (2, 28)
HYPERVISOR_PAGINATION = (2, 33)
KEYPAIR_PAGINATION = (2, 35)
AGGREGATE_UUID = (2, 41)
HOSTS_REMOVED = (2, 43)
SERVICE_HYPERVISOR_UUIDS = (2, 53)
REBUILD_KEY_NAME = (2, 54)
FLAVOR_EXTRA_SPECS_VALIDATION = (2, 86)
HYPERVISOR_STATS_REMOVED = (2, 88)
KEYPAIR_IMPORT_ONLY = (2, 92)
# Quota sets, quota classes and limits.
NETWORK_QUOTAS_REMOVED = (2, 36)
LIMITS_NO_IMAGE_META = (2, 39)
QUOTA_CLASS_SERVER_GROUPS = (2, 50)
PERSONALITY_REMOVED = (2, 57)
# Remote consoles.
REMOTE_CONSOLES = (2, 6)        # POST /servers/{id}/remote-consoles replaces the actions
MKS = (2, 8)                    # protocol mks / type webmks (not served here: 400)
ANY_CONSOLE_TOKEN = (2, 31)     # before: only rdp-html5 tokens could be shown
SPICE_DIRECT = (2, 99)          # spice-direct type; tls_port in token details
# Server create and rebuild bodies.
DEVICE_TAGS = (2, 32)
CREATE_TAGS = (2, 52)
BDM_VOLUME_TYPE = (2, 67)
CREATE_ON_HOST = (2, 74)
FQDN_HOSTNAMES = (2, 94)
# Instance actions.
DELETED_INSTANCE_ACTIONS = (2, 21)
ACTION_EVENTS_FOR_ALL = (2, 51)
INSTANCE_ACTIONS_PAGINATION = (2, 58)
ACTION_EVENT_HOST = (2, 62)
CHANGES_BEFORE = (2, 66)
ACTION_EVENT_DETAILS = (2, 84)
# Networking: the server network actions end at 2.43; os-interface takes a tag from
# 2.49 and shows it from 2.70.
NETWORK_ACTIONS_LAST = (2, 43)
INTERFACE_ATTACH_TAG = (2, 49)
INTERFACE_TAG_SHOWN = (2, 70)
# Volume attachments.
VOLUME_ATTACH_TAG = (2, 49)
ATTACHMENT_TAG_SHOWN = (2, 70)
DELETE_ON_TERMINATION = (2, 79)
ATTACHMENT_UPDATE = (2, 85)
ATTACHMENT_IDS = (2, 89)
ASYNC_VOLUME_ATTACH = (2, 101)
# Server external events.
VOLUME_EXTENDED_EVENT = (2, 51)
POWER_UPDATE_EVENT = (2, 76)
ACCELERATOR_EVENT = (2, 82)
VOLUME_REIMAGED_EVENT = (2, 93)
REBUILD_VOLUME_BACKED = (2, 93)      # rebuild re-images a volume-backed root
# Migrations, resize and shelve.
MIGRATION_IDS = (2, 23)
MIGRATE_HOST = (2, 56)
UNSHELVE_AZ = (2, 77)
SERVER_TOPOLOGY = (2, 78)
MIGRATIONS_USER_FILTERS = (2, 80)
UNSHELVE_HOST = (2, 91)
LIVE_MIGRATE_BLOCK_AUTO = (2, 25)
LIVE_MIGRATE_FORCE = (2, 30)
LIVE_MIGRATE_ASYNC = (2, 34)
LIVE_MIGRATE_FORCE_REMOVED = (2, 68)
LIVE_MIGRATE_FORCE_COMPLETE = (2, 22)   # POST .../migrations/{id}/action force_complete
LIVE_MIGRATE_ABORT = (2, 24)            # DELETE .../migrations/{id} (running)
LIVE_MIGRATE_ABORT_QUEUED = (2, 65)     # ... also queued or preparing
EVACUATE_NO_SHARED_STORAGE = (2, 14)    # no onSharedStorage, no adminPass answered
EVACUATE_FORCE = (2, 29)
EVACUATE_FORCE_REMOVED = (2, 68)
EVACUATE_STOPPED = (2, 95)              # the server arrives stopped

_MAX_VERSION_TEXT = 16
_VERSION_RE = re.compile(r'^([1-9]\d*)\.([1-9]\d*|0)$', re.ASCII)


class MalformedVersion(ValueError):
    pass


def parse(text):
    """'2.47' -> (2, 47); raises MalformedVersion for anything else."""
    # Bounded before int(): a number thousands of digits long is malformed,
    # not a reason to fail (int() refuses > 4300 digits with ValueError).
    if len(text) > _MAX_VERSION_TEXT:
        raise MalformedVersion(text[:_MAX_VERSION_TEXT] + '...')
    match = _VERSION_RE.match(text.strip())
    if not match:
        raise MalformedVersion(text)
    return int(match.group(1)), int(match.group(2))


def as_string(version):
    return '%d.%d' % version


MIN = parse(MIN_VERSION)
MAX = parse(MAX_VERSION)


def before(threshold):
    """The last microversion below ``threshold``: the max_version of what it replaced."""
    major, minor = threshold
    return major, minor - 1


# The last versions of what a later threshold removed or replaced.
LEGACY_CONSOLE_ACTIONS_LAST = before(REMOTE_CONSOLES)
HOSTS_LAST = before(HOSTS_REMOVED)
HYPERVISOR_STATS_LAST = before(HYPERVISOR_STATS_REMOVED)
HYPERVISOR_ID_PATHS_LAST = before(SERVICE_HYPERVISOR_UUIDS)


def in_range(version):
    return MIN <= version <= MAX

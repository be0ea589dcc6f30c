"""Cinder v3 microversions of the embedded volume service: the range and the thresholds used."""

import microversion_parse

from nova.embedded.volume import errors

SERVICE_TYPE = 'volume'
MIN_VERSION = (3, 0)
# The newest Cinder microversion whose response shapes the views produce.
# Resources we do not serve (backups, groups, transfers) simply 404.
MAX_VERSION = (3, 70)
# The 'updated' stamp of the version document; bump it with MAX_VERSION.
UPDATED = '2022-08-31T00:00:00Z'

# Named thresholds: the views and handlers compare against these.
GROUP_VOLUME = (3, 13)             # volumes show group_id
GROUP_SNAPSHOTS = (3, 14)          # snapshots show group_snapshot_id
VOLUME_DETAIL_PROVIDER_ID = (3, 21)  # volumes show provider_id (admin)
NEW_ATTACH = (3, 27)               # the /attachments API exists
RESOURCE_FILTER = (3, 31)          # unknown list filters are a 400
SNAPSHOT_LIST_USER_ID = (3, 41)    # snapshots show user_id
NEW_ATTACH_COMPLETION = (3, 44)    # attachment action os-complete
SUPPORT_COUNT_INFO = (3, 45)       # lists honour with_count
VOLUME_CREATE_FROM_BACKUP = (3, 47)  # volume create accepts backup_id
SHARED_TARGETS = (3, 48)           # volumes show service_uuid, shared_targets
SUPPORT_VOLUME_SCHEMA_CHANGES = (3, 53)  # unknown body keys are a 400
ATTACHMENT_CREATE_MODE_ARG = (3, 54)  # attachment create accepts 'mode'
CLUSTER_NAME = (3, 61)             # volumes show cluster_name (admin)
VOLUME_TYPE_ID = (3, 63)           # volumes show volume_type_id
CONSUMES_QUOTA = (3, 65)           # volumes and snapshots show consumes_quota
SNAPSHOT_IN_USE = (3, 66)          # in-use volumes snapshot without force
SUPPORT_REIMAGE_VOLUME = (3, 68)  # volume action os-reimage


def to_string(version):
    return '%d.%d' % version


def from_request(headers):
    """The requested version as a tuple; 3.0 when the header is absent.

    Raises BadRequest for a malformed value and NotAcceptable for one
    outside MIN_VERSION..MAX_VERSION, as Cinder does.
    """
    raw = microversion_parse.get_version(headers, service_type=SERVICE_TYPE)
    if raw is None:
        return MIN_VERSION
    raw = raw.strip()
    if raw.lower() == 'latest':
        return MAX_VERSION
    parts = raw.split('.')
    # ASCII digits of sane length only: str.isdigit() also accepts digits
    # int() refuses ('²') and int() refuses numbers over 4300 digits long.
    if (len(parts) != 2 or len(raw) > 16
            or not all(p.isascii() and p.isdigit() for p in parts)):
        raise errors.BadRequest(
            'API Version String %s is of invalid format. Must be of format '
            'MajorNum.MinorNum.' % raw[:32])
    version = (int(parts[0]), int(parts[1]))
    if not MIN_VERSION <= version <= MAX_VERSION:
        raise errors.NotAcceptable(
            'Version %s is not supported by the API. Minimum is %s and '
            'maximum is %s.' % (raw, to_string(MIN_VERSION),
                                to_string(MAX_VERSION)))
    return version


def response_headers(version):
    return {'OpenStack-API-Version': '%s %s' % (SERVICE_TYPE,
                                                 to_string(version)),
            'Vary': 'OpenStack-API-Version'}

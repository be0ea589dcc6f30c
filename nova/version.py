"""The installed version of the service, for --version and the version documents."""

import functools

# Bumped when a service's RPC or database behaviour changes in a way its peers
# must know about; each service records it with its heartbeat, and
# `nova-status upgrade check` warns about services older than the previous one.
# 2: nova-compute reads and writes the database through the conductor (RPC 1.2).
SERVICE_VERSION = 2


@functools.lru_cache(maxsize=1)
def version_string():
    try:
        from pbr import version as pbr_version
        return pbr_version.VersionInfo('nova').version_string()
    except Exception:  # noqa: BLE001 - not installed (a bare checkout): still answer.
        return 'unknown'

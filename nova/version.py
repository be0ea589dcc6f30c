"""The installed version of the service, for --version and the version documents."""

import functools


@functools.lru_cache(maxsize=1)
def version_string():
    try:
        from pbr import version as pbr_version
        return pbr_version.VersionInfo('nova').version_string()
    except Exception:  # noqa: BLE001 - not installed (a bare checkout): still answer.
        return 'unknown'

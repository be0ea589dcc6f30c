"""Personality (injected) files and OS-DCF:diskConfig: checks in the API, decoding on the host."""

import base64
import binascii

from oslo_utils import strutils

from nova import exception

DISK_CONFIG_KEY = 'disk_config'     # in the instance's system metadata: AUTO | MANUAL


class OnsetFileLimitExceeded(exception.QuotaError):
    msg_fmt = "Personality file limit exceeded"


class OnsetFilePathLimitExceeded(exception.QuotaError):
    msg_fmt = "Personality file path exceeds maximum %(allowed)s"


class OnsetFileContentLimitExceeded(exception.QuotaError):
    msg_fmt = "Personality file content exceeds maximum %(allowed)s"


def _decode(contents):
    try:
        return base64.b64decode(contents.encode('ascii'), validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError):
        return None


def checked_files(quota, context, project_id, user_id, personality):
    """[[path, base64 contents]] for the compute host, after upstream's checks:
    decodable contents (400), then the injected_files* limits (403)."""
    files = []
    for item in personality or ():
        path, contents = item.get('path'), item.get('contents')
        if not isinstance(path, str) or not isinstance(contents, str):
            raise exception.Invalid(reason='Personality entries need a "path" and '
                                           '"contents" string.')
        data = _decode(contents)
        if data is None:
            raise exception.Invalid(reason='Personality content for %s cannot be decoded'
                                           % path)
        files.append((path, data, contents))
    if not files:
        return []
    limits = (quota.user_limits(project_id, user_id) if user_id is not None
              else quota.project_limits(project_id))
    for resource, used, error in (
            ('injected_files', len(files), OnsetFileLimitExceeded),
            ('injected_file_path_bytes', max(len(p.encode('utf-8')) for p, _d, _c in files),
             OnsetFilePathLimitExceeded),
            ('injected_file_content_bytes', max(len(d) for _p, d, _c in files),
             OnsetFileContentLimitExceeded)):
        allowed = limits[resource]
        if 0 <= allowed < used:
            raise error(allowed=allowed)
    return [[path, contents] for path, _data, contents in files]


def decoded(files):
    """[(path, bytes)] from what checked_files produced (on the compute host)."""
    return [(path, base64.b64decode(contents)) for path, contents in files or ()]


def disk_config(requested, image):
    """AUTO or MANUAL for a server: as requested, else as the image's
    auto_disk_config property says; AUTO is refused when the image disables it."""
    prop = (image or {}).get('properties', {}).get('auto_disk_config')
    if requested == 'AUTO' and prop is not None and str(prop).lower() == 'disabled':
        raise exception.Invalid(reason='Requested image %s has automatic disk resizing '
                                       'disabled.' % (image or {}).get('id'))
    if requested in ('AUTO', 'MANUAL'):
        return requested
    if prop is not None and strutils.bool_from_string(prop):
        return 'AUTO'
    return 'MANUAL'


def shown(instance):
    """The OS-DCF:diskConfig value of an instance row."""
    return (instance.get('system_metadata') or {}).get(DISK_CONFIG_KEY, 'MANUAL')

"""Console auth tokens: issued by the compute API, checked by the console proxies."""

import hashlib
import time

from oslo_utils import uuidutils

from nova import exception

# console type -> the proxy of this service that serves it (spice-direct: none,
# a native SPICE proxy elsewhere looks its tokens up through the API)
PROXY_OF_TYPE = {'novnc': 'novnc', 'serial': 'serial', 'spice-html5': 'spice-html5'}


def token_hash(token):
    return hashlib.sha256(token.encode('utf-8')).hexdigest()


def access_url(console_type, base_url, token):
    """The URL handed to the user, in upstream's form for each proxy."""
    if console_type == 'novnc':
        # noVNC >= 1.0 reads the websocket path from the "path" parameter.
        return '%s?path=%%3Ftoken%%3D%s' % (base_url, token)
    return '%s?token=%s' % (base_url, token)


def issue(db, ttl, instance_uuid, console_type, connect_info, base_url, now=None):
    """Store a new token bound to the instance's console; return (token, url).

    Only the token's hash is stored: a database dump does not open consoles.
    """
    token = uuidutils.generate_uuid()
    now = int(time.time() if now is None else now)
    db.console_token_create({
        'token_hash': token_hash(token), 'console_type': console_type,
        'host': connect_info['host'], 'port': int(connect_info['port']),
        'tls_port': (int(connect_info['tls_port'])
                     if connect_info.get('tls_port') is not None else None),
        'internal_access_path': connect_info.get('internal_access_path'),
        'instance_uuid': instance_uuid, 'access_url_base': base_url,
        'expires': now + ttl})
    # Expired rows go as new ones come, so the table cannot grow without bound.
    db.console_token_destroy_expired(now)
    return token, access_url(console_type, base_url, token)


def validate(db, token, console_type=None, now=None):
    """The stored connection row for a valid token; InvalidToken otherwise."""
    if not token or len(token) > 255:
        raise exception.InvalidToken(token='***')
    row = db.console_token_get_valid(token_hash(token), int(time.time() if now is None
                                                            else now))
    if row is None or (console_type is not None and row['console_type'] != console_type):
        # Never echo the token back: logs and error pages would leak it.
        raise exception.InvalidToken(token='***')
    return row

"""Console auth tokens: issued by the compute API, checked by the console proxies."""

import hashlib
import logging
import time

import oslo_messaging as messaging
from oslo_utils import uuidutils

from nova import context as nova_context
from nova import exception
from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)

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


def is_current(db, compute_rpcapi, row):
    """Whether a token's host and port are still its instance's console.

    libvirt hands a freed port to the next guest, so a token kept past a
    stop, rescue, rebuild or move would open another guest's console. The
    instance's compute host is asked where the console is now (as upstream's
    validate_console_port); a token that no longer matches is destroyed.
    """
    try:
        instance = db.instance_get(row['instance_uuid'])
    except exception.InstanceNotFound:
        instance = None
    current = None
    if instance is not None and instance['host']:
        try:
            current = compute_rpcapi.get_console_connect_info(
                nova_context.get_admin_context(), instance_obj.Instance.from_db(instance),
                instance['host'], row['console_type'])
        except (exception.NovaException, messaging.MessagingException) as exc:
            LOG.info('console of %s not confirmed by its host: %s', row['instance_uuid'], exc)
    if current is not None and _same_console(current, row):
        return True
    LOG.info('%s console token of %s refused: the console moved or stopped',
             row['console_type'], row['instance_uuid'])
    db.console_token_destroy(row['token_hash'])
    return False


def _same_console(current, row):
    tls_port = current.get('tls_port')
    return (str(current['host']) == row['host'] and int(current['port']) == row['port']
            and (int(tls_port) if tls_port is not None else None) == row['tls_port'])

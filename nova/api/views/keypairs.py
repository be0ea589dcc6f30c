"""Key pair response bodies per microversion."""

from nova.api import microversion as mv
from nova.api.views import common


def _time(value):
    return value.strftime('%Y-%m-%dT%H:%M:%S.%f') if value is not None else None


def _base(req, kp):
    body = {'name': kp['name'], 'public_key': kp['public_key'],
            'fingerprint': kp['fingerprint']}
    if req.is_at_least(mv.KEYPAIR_TYPE):
        body['type'] = kp['type']
    return body


def create(req, kp, private_key):
    body = dict(_base(req, kp), user_id=kp['user_id'])
    if private_key is not None:
        body['private_key'] = private_key
    return {'keypair': body}


def show(req, kp):
    body = dict(_base(req, kp), user_id=kp['user_id'], id=kp['id'], deleted=False,
                created_at=_time(kp['created_at']), updated_at=_time(kp['updated_at']),
                deleted_at=None)
    return {'keypair': body}


def index(req, keypairs, limit):
    body = {'keypairs': [{'keypair': _base(req, kp)} for kp in keypairs]}
    if req.is_at_least(mv.KEYPAIR_PAGINATION):
        links = common.next_link(req, 'os-keypairs', keypairs, limit, id_key='name')
        if links:
            body['keypairs_links'] = links
    return body

"""The resize, confirmResize, revertResize, migrate, shelve, shelveOffload and unshelve actions."""

import copy

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.handlers import server_actions
from nova.policies import resize_shelve as policies

_flavor_ref = {'type': ['string', 'integer'], 'minLength': 1}
_resize = {
    'type': 'object',
    'properties': {'resize': {
        'type': 'object',
        'properties': {'flavorRef': _flavor_ref,
                       'OS-DCF:diskConfig': {'type': 'string', 'enum': ['AUTO', 'MANUAL']}},
        'required': ['flavorRef'], 'additionalProperties': False}},
    'required': ['resize'], 'additionalProperties': False,
}
# Upstream takes any value for the body-less actions; tempest sends null or {}.
_any = {'type': ['null', 'object']}
_host = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': '^[a-zA-Z0-9-._]*$'}
_migrate_v2_56 = {'type': ['object', 'null'],
                  'properties': {'host': {'type': ['string', 'null'], 'minLength': 1,
                                          'maxLength': 255, 'pattern': '^[a-zA-Z0-9-._]*$'}},
                  'additionalProperties': False}
_unshelve_v2_77 = {'type': ['object', 'null'],
                   'properties': {'availability_zone': {'type': 'string', 'minLength': 1,
                                                        'maxLength': 255}},
                   'additionalProperties': False}
# 2.91: a host, and an explicit null availability_zone means "any zone".
_unshelve_v2_91 = copy.deepcopy(_unshelve_v2_77)
_unshelve_v2_91['properties'] = {'availability_zone': {'type': ['string', 'null'],
                                                       'minLength': 1, 'maxLength': 255},
                                 'host': _host}


def _instance(req, server_id, policy):
    return server_actions._instance(req, server_id, policy)


def resize(req, server_id, body):
    validation.validate(_resize, body)
    instance = _instance(req, server_id, policies.RESIZE)
    req.app.compute_api.resize(req.context, instance, body['resize']['flavorRef'])
    return wsgi.empty_response(202)


def confirm_resize(req, server_id, body):
    instance = _instance(req, server_id, policies.CONFIRM)
    req.app.compute_api.confirm_resize(req.context, instance)
    return wsgi.empty_response(204)


def revert_resize(req, server_id, body):
    instance = _instance(req, server_id, policies.REVERT)
    req.app.compute_api.revert_resize(req.context, instance)
    return wsgi.empty_response(202)


def migrate(req, server_id, body):
    host = None
    if req.is_at_least(mv.MIGRATE_HOST):
        validation.validate(_migrate_v2_56, body['migrate'])
        host = (body['migrate'] or {}).get('host')
    instance = _instance(req, server_id, policies.MIGRATE)
    if host is not None:
        req.context.can(policies.MIGRATE_HOST, target={})
    req.app.compute_api.migrate(req.context, instance, host=host)
    return wsgi.empty_response(202)


def shelve(req, server_id, body):
    instance = _instance(req, server_id, policies.SHELVE)
    req.app.compute_api.shelve(req.context, instance)
    return wsgi.empty_response(202)


def shelve_offload(req, server_id, body):
    instance = _instance(req, server_id, policies.OFFLOAD)
    req.app.compute_api.shelve_offload(req.context, instance)
    return wsgi.empty_response(202)


def unshelve(req, server_id, body):
    spec = body['unshelve']
    if req.is_at_least(mv.UNSHELVE_HOST):
        validation.validate(_unshelve_v2_91, spec)
    elif req.is_at_least(mv.UNSHELVE_AZ):
        validation.validate(_unshelve_v2_77, spec)
    else:
        spec = None
    spec = spec or {}
    instance = _instance(req, server_id, policies.UNSHELVE)
    host = spec.get('host')
    if host is not None:
        req.context.can(policies.UNSHELVE_HOST, target={})
    req.app.compute_api.unshelve(req.context, instance, zone=spec.get('availability_zone'),
                                 host=host, zone_given='availability_zone' in spec)
    return wsgi.empty_response(202)

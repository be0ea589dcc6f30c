"""The resize, confirmResize, revertResize, migrate, shelve, shelveOffload and unshelve actions."""

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.handlers import server_actions
from nova.api.schemas import resize_shelve as schemas
from nova.policies import resize_shelve as policies


def _instance(req, server_id, policy):
    return server_actions._instance(req, server_id, policy)


@validation.schema(schemas.resize)
def resize(req, server_id, body):
    instance = _instance(req, server_id, policies.RESIZE)
    req.app.compute_api.resize.resize(req.context, instance, body['resize']['flavorRef'],
                                      disk_config=body['resize'].get('OS-DCF:diskConfig'))
    return wsgi.empty_response(202)


def confirm_resize(req, server_id, body):
    instance = _instance(req, server_id, policies.CONFIRM)
    req.app.compute_api.resize.confirm_resize(req.context, instance)
    return wsgi.empty_response(204)


def revert_resize(req, server_id, body):
    instance = _instance(req, server_id, policies.REVERT)
    req.app.compute_api.resize.revert_resize(req.context, instance)
    return wsgi.empty_response(202)


@validation.schema(schemas.migrate_v2_56, mv.MIGRATE_HOST)
def migrate(req, server_id, body):
    host = None
    if req.is_at_least(mv.MIGRATE_HOST):
        host = (body['migrate'] or {}).get('host')
    instance = _instance(req, server_id, policies.MIGRATE)
    if host is not None:
        req.context.can(policies.MIGRATE_HOST, target={})
    req.app.compute_api.resize.migrate(req.context, instance, host=host)
    return wsgi.empty_response(202)


def shelve(req, server_id, body):
    instance = _instance(req, server_id, policies.SHELVE)
    req.app.compute_api.shelve.shelve(req.context, instance)
    return wsgi.empty_response(202)


def shelve_offload(req, server_id, body):
    instance = _instance(req, server_id, policies.OFFLOAD)
    req.app.compute_api.shelve.shelve_offload(req.context, instance)
    return wsgi.empty_response(202)


@validation.schema(schemas.unshelve_v2_77, mv.UNSHELVE_AZ, mv.before(mv.UNSHELVE_HOST))
@validation.schema(schemas.unshelve_v2_91, mv.UNSHELVE_HOST)
def unshelve(req, server_id, body):
    # Before 2.77 the body's value is ignored, as upstream.
    spec = (body['unshelve'] if req.is_at_least(mv.UNSHELVE_AZ) else None) or {}
    instance = _instance(req, server_id, policies.UNSHELVE)
    host = spec.get('host')
    if host is not None:
        req.context.can(policies.UNSHELVE_HOST, target={})
    req.app.compute_api.shelve.unshelve(req.context, instance, zone=spec.get('availability_zone'),
                                        host=host, zone_given='availability_zone' in spec)
    return wsgi.empty_response(202)

"""Handlers of /os-keypairs: create or import, list, show, delete (per user)."""

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import keypairs as schemas
from nova.api.views import keypairs as views
from nova.policies import keypairs as policies


def _user_id(req, requested):
    """The key pairs' owner: the caller, or from 2.10 any user an admin names."""
    if requested is not None and req.is_at_least(mv.KEYPAIR_USER_ID):
        return requested
    return req.context.user_id


def _authorize(req, policy, user_id):
    req.context.can(policy, target={'user_id': user_id})


@validation.schema(schemas.create_v2_92, mv.KEYPAIR_IMPORT_ONLY)
@validation.schema(schemas.create_v2_10, mv.KEYPAIR_USER_ID,
                   mv.before(mv.KEYPAIR_IMPORT_ONLY))
@validation.schema(schemas.create_v2_2, mv.KEYPAIR_TYPE, mv.before(mv.KEYPAIR_USER_ID))
@validation.schema(schemas.create_v2_1, mv.MIN, mv.before(mv.KEYPAIR_TYPE))
def create(req, body):
    keypair = body['keypair']
    user_id = _user_id(req, keypair.get('user_id'))
    _authorize(req, policies.CREATE, user_id)
    row, private_key = req.app.compute_api.keypairs.keypair_create(
        req.context, user_id, keypair['name'], key_type=keypair.get('type', 'ssh'),
        public_key=keypair.get('public_key'))
    # 2.2 made create answer 201 Created.
    status = 201 if req.is_at_least(mv.KEYPAIR_TYPE) else 200
    return wsgi.json_response(views.create(req, row, private_key), status=status)


@validation.query_schema(schemas.index_query_v2_35, mv.KEYPAIR_PAGINATION,
                         strict_from=mv.FULL_UPDATE_BODY)
@validation.query_schema(schemas.index_query_v2_10, mv.KEYPAIR_USER_ID,
                         mv.before(mv.KEYPAIR_PAGINATION))
@validation.query_schema(schemas.index_query_v2_1, mv.MIN, mv.before(mv.KEYPAIR_USER_ID))
def index(req, params):
    user_id = _user_id(req, params.get('user_id'))
    _authorize(req, policies.INDEX, user_id)
    limit = int(params['limit']) if 'limit' in params else None
    rows = req.app.compute_api.keypairs.keypair_list(req.context, user_id, limit=limit,
                                                     marker=params.get('marker'))
    return wsgi.json_response(views.index(req, rows, limit))


@validation.query_schema(schemas.show_query_v2_10, mv.KEYPAIR_USER_ID,
                         strict_from=mv.FULL_UPDATE_BODY)
@validation.query_schema(schemas.show_query_v2_1, mv.MIN, mv.before(mv.KEYPAIR_USER_ID))
def show(req, keypair_name, params):
    user_id = _user_id(req, params.get('user_id'))
    _authorize(req, policies.SHOW, user_id)
    row = req.app.compute_api.keypairs.keypair_get(req.context, user_id, keypair_name)
    return wsgi.json_response(views.show(req, row))


@validation.query_schema(schemas.show_query_v2_10, mv.KEYPAIR_USER_ID,
                         strict_from=mv.FULL_UPDATE_BODY)
@validation.query_schema(schemas.show_query_v2_1, mv.MIN, mv.before(mv.KEYPAIR_USER_ID))
def delete(req, keypair_name, params):
    user_id = _user_id(req, params.get('user_id'))
    _authorize(req, policies.DELETE, user_id)
    req.app.compute_api.keypairs.keypair_delete(req.context, user_id, keypair_name)
    # 2.2 made delete answer 204 No Content.
    return wsgi.empty_response(204 if req.is_at_least(mv.KEYPAIR_TYPE) else 202)

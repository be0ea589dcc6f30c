"""The os-migrateLive server action: upstream's request checks and answers."""

from nova.api import validation, wsgi
from nova.api.handlers import server_actions
from nova.api.schemas import live_migrate as schemas
from nova.policies import live_migrate as policies

BLOCK_AUTO = (2, 25)
FORCE = (2, 30)
ASYNC = (2, 34)
FORCE_REMOVED = (2, 68)


def _schema(req):
    if req.is_at_least(FORCE_REMOVED):
        return schemas.migrate_live_v2_68
    if req.is_at_least(FORCE):
        return schemas.migrate_live_v2_30
    if req.is_at_least(BLOCK_AUTO):
        return schemas.migrate_live_v2_25
    return schemas.migrate_live


def migrate_live(req, server_id, body):
    validation.validate(_schema(req), body)
    host = body['os-migrateLive']['host']
    instance = server_actions._instance(req, server_id, policies.MIGRATE_LIVE)
    if host is not None:
        req.context.can(policies.MIGRATE_LIVE_HOST, target={})
    req.app.compute_api.live_migrate(req.context, instance, host=host,
                                     async_=req.is_at_least(ASYNC))
    return wsgi.empty_response(202)


server_actions.register('os-migrateLive', migrate_live)

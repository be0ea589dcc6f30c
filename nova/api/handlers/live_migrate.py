"""The os-migrateLive server action: upstream's request checks and answers."""

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.handlers import server_actions
from nova.api.schemas import live_migrate as schemas
from nova.policies import live_migrate as policies


@validation.schema(schemas.migrate_live, mv.MIN, mv.before(mv.LIVE_MIGRATE_BLOCK_AUTO))
@validation.schema(schemas.migrate_live_v2_25, mv.LIVE_MIGRATE_BLOCK_AUTO,
                   mv.before(mv.LIVE_MIGRATE_FORCE))
@validation.schema(schemas.migrate_live_v2_30, mv.LIVE_MIGRATE_FORCE,
                   mv.before(mv.LIVE_MIGRATE_FORCE_REMOVED))
@validation.schema(schemas.migrate_live_v2_68, mv.LIVE_MIGRATE_FORCE_REMOVED)
def migrate_live(req, server_id, body):
    host = body['os-migrateLive']['host']
    instance = server_actions._instance(req, server_id, policies.MIGRATE_LIVE)
    if host is not None:
        req.context.can(policies.MIGRATE_LIVE_HOST, target={})
    req.app.compute_api.live_migration.live_migrate(req.context, instance, host=host,
                                                    async_=req.is_at_least(mv.LIVE_MIGRATE_ASYNC))
    return wsgi.empty_response(202)


"""Handler of POST /os-server-external-events: per-event status and code, 207 if mixed."""

from nova.api import microversion as mv
from nova.api import validation, wsgi
from nova.api.schemas import server_external_events as schemas
from nova.policies import server_external_events as policies


@validation.schema(schemas.create_v2_1, max_version=mv.before(mv.VOLUME_EXTENDED_EVENT))
@validation.schema(schemas.create_v2_51, mv.VOLUME_EXTENDED_EVENT,
                   mv.before(mv.POWER_UPDATE_EVENT))
@validation.schema(schemas.create_v2_76, mv.POWER_UPDATE_EVENT,
                   mv.before(mv.ACCELERATOR_EVENT))
@validation.schema(schemas.create_v2_82, mv.ACCELERATOR_EVENT,
                   mv.before(mv.VOLUME_REIMAGED_EVENT))
@validation.schema(schemas.create_v2_93, mv.VOLUME_REIMAGED_EVENT)
def create(req, body):
    req.context.can(policies.CREATE, target={})
    results, accepted = req.app.compute_api.events.external_instance_events(
        req.context, body['events'])
    if not accepted:
        raise wsgi.fault(404, 'No instances found for any event')
    status = 200 if all(r['code'] == 200 for r in results) else 207
    return wsgi.json_response({'events': results}, status=status)

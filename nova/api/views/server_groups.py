"""Server group response bodies per microversion."""

from nova.api import microversion as mv


def group(req, sg):
    body = {'id': sg['uuid'], 'name': sg['name'], 'members': list(sg['members'])}
    if req.is_at_least(mv.SERVER_GROUP_POLICY):
        body['policy'] = sg['policy']
        body['rules'] = dict(sg['rules'] or {})
    else:
        body['policies'] = [sg['policy']]
        # Exposed but never used upstream: always empty.
        body['metadata'] = {}
    if req.is_at_least(mv.SERVER_GROUP_OWNER):
        body['project_id'] = sg['project_id']
        body['user_id'] = sg['user_id']
    return body

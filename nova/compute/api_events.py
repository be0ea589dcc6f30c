"""Compute API: external events (os-server-external-events) sent by other services."""

import logging

from nova.objects import instance as instance_obj

LOG = logging.getLogger(__name__)

# Events that mean nothing without a tag (upstream's TAG_REQUIRED).
TAG_REQUIRED = ('volume-extended', 'power-update', 'accelerator-request-bound')
# Instance actions upstream records for some events.
_ACTIONS = {'volume-extended': 'extend_volume'}


class ExternalEventsAPI:
    """os-server-external-events: the events other services send about servers."""

    def __init__(self, db, compute_rpcapi):
        self._db = db
        self._compute_rpcapi = compute_rpcapi

    def external_instance_events(self, context, events):
        """Answer each event with status/code as upstream and cast the accepted ones.

        ``events`` are the request's dicts; returns (results, accepted count).
        """
        uuids = sorted({e['server_uuid'] for e in events})
        rows = {r['uuid']: r for r in self._db.instance_get_all({'uuid': uuids})}
        results, by_host = [], {}
        for event in events:
            result = dict(event)
            results.append(result)
            instance = rows.get(event['server_uuid'])
            if instance is None:
                result.update(status='failed', code=404)
            elif event['name'] in TAG_REQUIRED and event.get('tag') is None:
                result.update(status='failed', code=400)
            elif not instance['host']:
                # No host to deliver it to (not scheduled yet, or never placed).
                result.update(status='failed', code=422)
            else:
                result.update(status='completed', code=200)
                accepted = dict(event, status=event.get('status', 'completed'))
                by_host.setdefault(instance['host'], {}).setdefault(
                    instance['uuid'], (instance, []))[1].append(accepted)
        for host, instances in by_host.items():
            for instance, accepted in instances.values():
                for event in accepted:
                    if event['name'] in _ACTIONS:
                        self._db.action_start(context, instance['uuid'], _ACTIONS[event['name']])
                self._compute_rpcapi.external_instance_event(
                    context, instance_obj.Instance.from_db(instance), host, accepted)
        return results, sum(len(a) for i in by_host.values() for _r, a in i.values())

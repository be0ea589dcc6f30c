"""Host aggregate rules: membership, metadata and the availability zones they define."""

from nova import exception

AZ_KEY = 'availability_zone'


class AggregatesAPI:
    """os-aggregates for the compute API (admin callers)."""

    def __init__(self, conf, db):
        self._conf = conf
        self._db = db

    def aggregate_list(self, context):
        return self._db.aggregate_get_all()

    def aggregate_get(self, context, aggregate_id):
        return self._db.aggregate_get(aggregate_id)

    def aggregate_create(self, context, name, zone=None):
        self._check_zone_name(zone)
        return self._db.aggregate_create(name, {AZ_KEY: zone} if zone else None)

    def aggregate_update(self, context, aggregate_id, values):
        agg = self._db.aggregate_get(aggregate_id)
        if AZ_KEY in values:
            self._check_zone_change(agg, values[AZ_KEY], 'update aggregate')
        agg = self._db.aggregate_update(agg['id'], name=values.get('name'))
        if AZ_KEY in values:
            agg = self._db.aggregate_metadata_set(agg['id'], {AZ_KEY: values[AZ_KEY]})
        return agg

    def aggregate_delete(self, context, aggregate_id):
        agg = self._db.aggregate_get(aggregate_id)
        if agg['hosts']:
            raise exception.InvalidAggregateAction(action='delete', aggregate_id=agg['id'],
                                                   reason='Host aggregate is not empty')
        self._db.aggregate_destroy(agg['id'])

    def aggregate_add_host(self, context, aggregate_id, host):
        agg = self._db.aggregate_get(aggregate_id)
        if not any(s['host'] == host for s in self._db.service_get_all(binary='nova-compute')):
            raise exception.ComputeHostNotFound(host=host)
        zone = agg['metadata'].get(AZ_KEY)
        current = self._db.host_zones().get(host)
        if zone and current and current != zone:
            raise exception.AggregateActionConflict(
                action='add host to', aggregate_id=agg['id'],
                reason='One or more hosts already in availability zone(s) %s' % [current])
        return self._db.aggregate_host_add(agg['id'], host)

    def aggregate_remove_host(self, context, aggregate_id, host):
        agg = self._db.aggregate_get(aggregate_id)
        if not any(s['host'] == host for s in self._db.service_get_all(binary='nova-compute')):
            raise exception.ComputeHostNotFound(host=host)
        return self._db.aggregate_host_remove(agg['id'], host)

    def aggregate_set_metadata(self, context, aggregate_id, metadata):
        agg = self._db.aggregate_get(aggregate_id)
        if AZ_KEY in metadata:
            self._check_zone_change(agg, metadata[AZ_KEY], 'update aggregate metadata')
        return self._db.aggregate_metadata_set(agg['id'], metadata)

    def _check_zone_name(self, zone):
        if zone and zone == self._conf.internal_service_availability_zone:
            raise exception.InvalidAggregateAction(
                action='create', aggregate_id='new',
                reason='Aggregates cannot use the internal availability zone %s' % zone)

    def _check_zone_change(self, agg, zone, action):
        """A host is in one zone: refuse a zone its hosts' other aggregates contradict."""
        self._check_zone_name(zone)
        if not zone:
            return
        others = {}
        for other in self._db.aggregate_get_all():
            other_zone = other['metadata'].get(AZ_KEY)
            if other['id'] != agg['id'] and other_zone and other_zone != zone:
                for host in set(other['hosts']) & set(agg['hosts']):
                    others[host] = other_zone
        if others:
            raise exception.InvalidAggregateAction(
                action=action, aggregate_id=agg['id'],
                reason='One or more hosts already in availability zone(s) %s'
                       % sorted(set(others.values())))

"""Host aggregate rules: membership, metadata and the availability zones they define."""

from nova import exception

AZ_KEY = 'availability_zone'


class AggregatesAPI:
    """os-aggregates for the compute API (admin callers)."""

    def __init__(self, db):
        self._db = db

    def aggregate_list(self, context):
        return self._db.aggregate_get_all()

    def aggregate_get(self, context, aggregate_id):
        return self._db.aggregate_get(aggregate_id)

    def aggregate_create(self, context, name, zone=None):
        # Any name the schema lets through is a zone, 'internal' included, as upstream.
        return self._db.aggregate_create(name, {AZ_KEY: zone} if zone else None)

    def aggregate_update(self, context, aggregate_id, values):
        agg = self._db.aggregate_get(aggregate_id)
        if AZ_KEY in values:
            self._check_zone_change(agg, values[AZ_KEY], exception.InvalidAggregateActionUpdate)
        # Checked before anything is written (upstream renames first, then refuses).
        agg = self._db.aggregate_update(agg['id'], name=values.get('name'))
        if AZ_KEY in values:
            agg = self._db.aggregate_metadata_set(agg['id'], {AZ_KEY: values[AZ_KEY]})
        return agg

    def aggregate_delete(self, context, aggregate_id):
        agg = self._db.aggregate_get(aggregate_id)
        if agg['hosts']:
            raise exception.InvalidAggregateActionDelete(aggregate_id=agg['id'],
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
            self._check_zone_change(agg, metadata[AZ_KEY],
                                    exception.InvalidAggregateActionUpdateMeta)
        return self._db.aggregate_metadata_set(agg['id'], metadata)

    def _check_zone_change(self, agg, zone, refusal):
        """Upstream's rules for giving an aggregate a zone by update or set_metadata.

        A zone has a name (null or empty is refused, not taken as "no zone"); a
        host is in one zone, so a zone its hosts' other aggregates contradict is
        refused; and a zone is not renamed under servers that live in it (soft
        deleted ones included: they can be restored there).
        """
        if not zone:
            raise refusal(aggregate_id=agg['id'],
                          reason='Aggregate %s does not support empty named availability '
                                 'zone' % agg['name'])
        hosts = set(agg['hosts'])
        conflicting = [other['metadata'][AZ_KEY] for other in self._db.aggregate_get_all()
                       if other['id'] != agg['id'] and other['metadata'].get(AZ_KEY)
                       and other['metadata'][AZ_KEY] != zone and hosts & set(other['hosts'])]
        if conflicting:
            raise refusal(aggregate_id=agg['id'],
                          reason='One or more hosts already in availability zone(s) %s'
                                 % conflicting)
        if hosts and agg['metadata'].get(AZ_KEY) != zone and self._db.instance_get_all(
                {'host': sorted(hosts)}, limit=1):
            raise refusal(aggregate_id=agg['id'],
                          reason='One or more hosts contain instances in this zone')

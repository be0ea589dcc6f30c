"""The compute host's periodic info cache heal: one server per run, rebuilt from Neutron."""

import logging
import threading

from nova import exception
from nova.network import networks as net_lookups

LOG = logging.getLogger(__name__)


class InfoCacheHealer:
    """Walks the host's servers in turn ([DEFAULT]
    heal_instance_info_cache_interval seconds apart, <= 0: off), as upstream's
    _heal_instance_info_cache does, so drift Neutron did not announce (a
    missed network-changed) is repaired."""

    def __init__(self, conf, info):
        self._conf = conf
        self._info = info
        self._lock = threading.Lock()
        self._queue = []

    @property
    def interval(self):
        """The periodic task's spacing; 0 when the heal is off."""
        return max(self._conf.heal_instance_info_cache_interval, 0)

    def heal_next(self, context, instances):
        """Rebuild the next server's network info: (instance, network info) for
        the caller to save, or None when there is nothing to do. Servers
        deleted since the last run drop out of the walk."""
        by_uuid = {net_lookups.instance_field(i, 'uuid'): i for i in instances}
        with self._lock:
            self._queue = [u for u in self._queue if u in by_uuid]
            if not self._queue:
                self._queue = list(by_uuid)
            if not self._queue:
                return None
            uuid = self._queue.pop(0)
        instance = by_uuid[uuid]
        try:
            return instance, self._info.build(context, instance)
        except exception.NetworkServiceError as exc:
            LOG.warning('Healing the network info cache of %s failed: %s', uuid, exc)
            return None

"""The metadata API's own queries: instances by fixed IP, the guest's one-time password."""

import ipaddress
import json

import sqlalchemy as sa
from oslo_utils import timeutils

from nova.db import models, store

# By table name: the table group needs nothing from the model classes but the table.
_INSTANCES = models.BASE.metadata.tables['instances']


def _fixed_ips(network_info):
    """Every fixed IP in a network info cache (upstream's VIF list), as ip_address objects."""
    for vif in network_info if isinstance(network_info, list) else ():
        network = vif.get('network') if isinstance(vif, dict) else None
        for subnet in (network or {}).get('subnets') or ():
            for ip in (subnet or {}).get('ips') or ():
                try:
                    yield ipaddress.ip_address((ip or {}).get('address'))
                except (TypeError, ValueError):
                    continue


class GuestMetadataDB(store.DBStore):
    """The metadata API's reads and its one write on the instances table."""

    def instance_uuids_by_fixed_ip(self, address):
        """Uuids of the live instances whose network info cache holds ``address`` as a fixed IP.

        More than one means overlapping networks: the caller cannot tell the
        instances apart by address. A text match narrows the scan in the
        database; the JSON is then read to compare whole addresses.
        """
        try:
            wanted = ipaddress.ip_address(address)
        except (TypeError, ValueError):
            return []
        query = sa.select(_INSTANCES.c.uuid, _INSTANCES.c.network_info).where(
            _INSTANCES.c.deleted == 0,
            # Addresses hold no LIKE wildcards (% or _).
            _INSTANCES.c.network_info.like('%' + str(wanted) + '%'))
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        found = []
        for uuid, raw in rows:
            try:
                cache = json.loads(raw)
            except (TypeError, ValueError):
                continue
            if any(ip == wanted for ip in _fixed_ips(cache)):
                found.append(uuid)
        return found

    def instance_holds_fixed_ip(self, uuid, address):
        """Whether the live instance ``uuid`` still has fixed IP ``address`` (one indexed read)."""
        try:
            wanted = ipaddress.ip_address(address)
        except (TypeError, ValueError):
            return False
        with self.engine.connect() as conn:
            raw = conn.execute(sa.select(_INSTANCES.c.network_info).where(
                _INSTANCES.c.uuid == uuid, _INSTANCES.c.deleted == 0)).scalar()
        try:
            cache = json.loads(raw)
        except (TypeError, ValueError):
            return False
        return any(ip == wanted for ip in _fixed_ips(cache))

    def instance_password_set_once(self, uuid, chunks):
        """Store the guest's password chunks unless one is stored already.

        True when stored, False when a password was there (it stays), None
        when the instance does not exist. The check and the write are one
        transaction with the row locked, so of two guests' posts one wins.
        """
        with self.writer.begin() as conn:
            row = conn.execute(sa.select(_INSTANCES.c.system_metadata).where(
                _INSTANCES.c.uuid == uuid, _INSTANCES.c.deleted == 0).with_for_update()).first()
            if row is None:
                return None
            sysmeta = json.loads(row[0] or '{}')
            if any(sysmeta.get(key) for key in chunks):
                return False
            sysmeta.update(chunks)
            conn.execute(_INSTANCES.update().where(_INSTANCES.c.uuid == uuid).values(
                system_metadata=json.dumps(sysmeta),
                updated_at=timeutils.utcnow().replace(microsecond=0)))
            return True

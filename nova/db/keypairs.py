"""Key pair rows: one user's public keys, unique by name per user."""

import sqlalchemy as sa

from nova import exception
from nova.db import models, store

KEY_PAIRS = models.KeyPairRecord.__table__


class KeyPairsDB(store.DBStore):
    """The key_pairs table."""

    def key_pair_create(self, values):
        with self.writer.begin() as conn:
            if conn.execute(sa.select(KEY_PAIRS.c.id).where(
                    KEY_PAIRS.c.user_id == values['user_id'],
                    KEY_PAIRS.c.name == values['name'])).first():
                raise exception.KeyPairExists(key_name=values['name'])
            kp_id = self._insert(conn, KEY_PAIRS, values)
            return self._one_by(conn, KEY_PAIRS, id=kp_id)

    def key_pair_get(self, user_id, name):
        with self.engine.connect() as conn:
            row = self._one(conn, KEY_PAIRS, KEY_PAIRS.c.user_id == user_id,
                            KEY_PAIRS.c.name == name)
        if row is None:
            raise exception.KeypairNotFound(name=name, user_id=user_id)
        return row

    def key_pair_get_all(self, user_id, limit=None, marker=None):
        """A user's key pairs by name; ``marker`` is the last name already seen."""
        query = sa.select(KEY_PAIRS).where(KEY_PAIRS.c.user_id == user_id)
        with self.engine.connect() as conn:
            if marker is not None:
                if self._one(conn, KEY_PAIRS, KEY_PAIRS.c.user_id == user_id,
                             KEY_PAIRS.c.name == marker) is None:
                    raise exception.MarkerNotFound(marker=marker)
                query = query.where(KEY_PAIRS.c.name > marker)
            query = query.order_by(KEY_PAIRS.c.name.asc(), KEY_PAIRS.c.id.asc())
            if limit is not None:
                query = query.limit(limit)
            return [dict(r._mapping) for r in conn.execute(query)]

    def key_pair_count(self, user_id):
        query = sa.select(sa.func.count()).select_from(KEY_PAIRS).where(
            KEY_PAIRS.c.user_id == user_id)
        with self.engine.connect() as conn:
            return conn.execute(query).scalar()

    def key_pair_destroy(self, user_id, name):
        with self.writer.begin() as conn:
            if not conn.execute(KEY_PAIRS.delete().where(
                    KEY_PAIRS.c.user_id == user_id, KEY_PAIRS.c.name == name)).rowcount:
                raise exception.KeypairNotFound(name=name, user_id=user_id)

"""Console auth token rows: create, validate (unexpired) and purge."""

from nova.db import models, statements, store

TOKENS = models.ConsoleAuthTokenRecord.__table__


class ConsoleTokensDB(store.DBStore):
    """The console_auth_tokens table."""

    def console_token_create(self, values):
        with self.writer.begin() as conn:
            token_id = self._insert(conn, TOKENS, values)
            return self._one_by(conn, TOKENS, id=token_id)

    def console_token_get_valid(self, token_hash, now, instance_uuid=None):
        """The unexpired row for ``token_hash`` or None."""
        where = [TOKENS.c.token_hash == token_hash, TOKENS.c.expires > now]
        if instance_uuid is not None:
            where.append(TOKENS.c.instance_uuid == instance_uuid)
        with self.engine.connect() as conn:
            return self._one(conn, TOKENS, *where)

    def console_token_destroy(self, token_hash):
        with self.writer.begin() as conn:
            return conn.execute(TOKENS.delete().where(
                TOKENS.c.token_hash == token_hash)).rowcount

    def console_token_destroy_expired(self, now):
        with self.writer.begin() as conn:
            return conn.execute(TOKENS.delete().where(TOKENS.c.expires <= now)).rowcount

    def console_token_destroy_for_instance(self, instance_uuid):
        with self.writer.begin() as conn:
            return conn.execute(statements.delete_by(TOKENS, ('instance_uuid',)),
                                statements.params({'instance_uuid': instance_uuid})).rowcount

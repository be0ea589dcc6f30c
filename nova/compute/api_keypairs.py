"""Key pair rules: per-user ownership, generation or import, fingerprints, quota."""

import json

from nova import crypto, exception

# Upstream's default key_pairs quota; the quota engine replaces this when wired.
DEFAULT_KEY_PAIRS_QUOTA = 100


def count_key_pairs(db, user_id):
    """Usage count for the key_pairs quota resource (per user, as upstream)."""
    return db.key_pair_count(user_id)


class KeypairsMixin:
    """os-keypairs for the compute API; ``user_id`` is already authorised."""

    def _check_key_pairs_quota(self, context, user_id):
        # QUOTA CALL SITE: when nova/quota.py lands, check the 'key_pairs'
        # resource here with count_key_pairs() as its counter (delta 1).
        if count_key_pairs(self.db, user_id) + 1 > DEFAULT_KEY_PAIRS_QUOTA:
            raise exception.KeypairLimitExceeded()

    def keypair_create(self, context, user_id, name, key_type='ssh', public_key=None):
        """Import ``public_key`` or generate one; returns (row, private key or None)."""
        self._check_key_pairs_quota(context, user_id)
        private_key = None
        if public_key is not None:
            fingerprint = crypto.fingerprint(key_type, public_key)
        elif key_type == 'x509':
            private_key, public_key, fingerprint = crypto.generate_x509(user_id)
        else:
            private_key, public_key, fingerprint = crypto.generate_ssh()
        row = self.db.key_pair_create(dict(name=name, user_id=user_id, type=key_type,
                                           public_key=public_key, fingerprint=fingerprint))
        return row, private_key

    def key_values(self, user_id, key_name):
        """Instance columns for booting with ``key_name``; 400 if the user has no such key."""
        if key_name is None:
            return {'key_name': None, 'key_data': None}
        try:
            kp = self.db.key_pair_get(user_id, key_name)
        except exception.KeypairNotFound:
            raise exception.Invalid(reason='Invalid key_name provided.')
        # The guest is given the key as it is now; deleting the pair later
        # leaves the server's record (and its config drive) unchanged.
        return {'key_name': kp['name'],
                'key_data': json.dumps({'name': kp['name'], 'type': kp['type'],
                                        'public_key': kp['public_key']})}

    def keypair_get(self, context, user_id, name):
        return self.db.key_pair_get(user_id, name)

    def keypair_list(self, context, user_id, limit=None, marker=None):
        return self.db.key_pair_get_all(user_id, limit=limit, marker=marker)

    def keypair_delete(self, context, user_id, name):
        self.db.key_pair_destroy(user_id, name)

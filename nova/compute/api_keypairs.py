"""Key pair rules: per-user ownership, generation or import, fingerprints, quota."""

import json

from nova import crypto, exception


class KeypairsAPI:
    """os-keypairs for the compute API; ``user_id`` is already authorised."""

    def __init__(self, db, quota):
        self._db = db
        self._quota = quota

    def _check_key_pairs_quota(self, context, user_id):
        # The key belongs to ``user_id`` (an admin may create one for another
        # user): that user's count against the caller's project limits.
        try:
            self._quota.check_deltas(context, {'key_pairs': 1}, context.project_id,
                                     user_id=user_id)
        except exception.OverQuota:
            raise exception.KeypairLimitExceeded() from None

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
        row = self._db.key_pair_create(dict(name=name, user_id=user_id, type=key_type,
                                            public_key=public_key, fingerprint=fingerprint))
        return row, private_key

    def key_values(self, user_id, key_name):
        """Instance columns for booting with ``key_name``; 400 if the user has no such key."""
        if key_name is None:
            return {'key_name': None, 'key_data': None}
        try:
            kp = self._db.key_pair_get(user_id, key_name)
        except exception.KeypairNotFound:
            raise exception.Invalid(reason='Invalid key_name provided.')
        # The guest is given the key as it is now; deleting the pair later
        # leaves the server's record (and its config drive) unchanged.
        return {'key_name': kp['name'],
                'key_data': json.dumps({'name': kp['name'], 'type': kp['type'],
                                        'public_key': kp['public_key']})}

    def keypair_get(self, context, user_id, name):
        return self._db.key_pair_get(user_id, name)

    def keypair_list(self, context, user_id, limit=None, marker=None):
        return self._db.key_pair_get_all(user_id, limit=limit, marker=marker)

    def keypair_delete(self, context, user_id, name):
        self._db.key_pair_destroy(user_id, name)

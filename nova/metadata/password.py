"""The guest's encrypted password as it is stored: four system metadata chunks of 255."""

CHUNKS = 4
CHUNK_LENGTH = 255
# What a guest may store, as upstream: the four chunks, 1020 characters.
MAX_SIZE = CHUNKS * CHUNK_LENGTH
KEYS = tuple('password_%d' % i for i in range(CHUNKS))


def extract(system_metadata):
    """The stored password, or None when none is set."""
    sysmeta = system_metadata or {}
    return ''.join(sysmeta.get(key) or '' for key in KEYS) or None


def to_chunks(password):
    """{password_0: ..., password_3: ...} holding ``password`` (text)."""
    return {key: password[i * CHUNK_LENGTH:(i + 1) * CHUNK_LENGTH]
            for i, key in enumerate(KEYS)}

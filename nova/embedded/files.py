"""File helpers shared by the embedded endpoints' stores: atomic JSON writes, quiet unlink."""

import json
import os


def write_json(path, obj):
    """Write ``obj`` so that readers see the old or the new file, never half."""
    tmp = path + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as fp:
        json.dump(obj, fp, ensure_ascii=False, sort_keys=True)
        fp.flush()
        os.fsync(fp.fileno())
    os.replace(tmp, path)


def unlink(path):
    """Remove ``path`` if it exists."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass

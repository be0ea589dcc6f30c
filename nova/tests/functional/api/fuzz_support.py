"""Route lists, nasty values and a raw HTTP client for the API fuzz test."""

import datetime
import http.client
import json
import re
import time
import urllib.parse

import sqlalchemy as sa

from nova.api import microversion as mv
from nova.api import router
from nova.db import models
from nova.embedded.image import app as image_app
from nova.embedded.volume import app as volume_app

MAX_INT = 0x7FFFFFFF
# Values that broke the API before: over-long numbers, surrogates, bad formats...
NASTY_TEXT = [
    '', ' ', 'x' * 300, '\ud800', 'a\udfffb', '\x00', '\x1f', '"\'<>', '%ff', '9' * 5000,
    '-1', '0', '2147483648', '99999999999999999999999', '1.5', '1e400', 'NaN', 'null',
    'true', '\u0663', '\u00b2', '2020-13-45T99:00:00Z', '9999-12-31T23:59:59-01:00',
    '0001-01-01T00:00:00+14:00', '!!!', '====', '../../etc/passwd', 'not-a-uuid',
    '00000000-0000-0000-0000-000000000000', 'ide', 'xen', '\u202e\u0000',
]
NASTY_NUMBERS = [0, -1, 1, 2 ** 31, 2 ** 31 - 1, 2 ** 63, -2 ** 63 - 1, 10 ** 30, 1.5, -0.0,
                 1e308]
NASTY_OTHER = [None, True, False, [], {}, [None], {'': None}, ['x'] * 200]
# Raw JSON texts no Python object produces.
NASTY_RAW = [b'[' * 100000 + b']' * 100000, b'{"a":' * 5000 + b'1' + b'}' * 5000,
             b'1' + b'0' * 5000, b'NaN', b'Infinity', b'-Infinity', b'"\\ud800"',
             b'{"x": 1e400}', b'\xff\xfe\x00', b'{"a": "\xc3\x28"}', b'{', b'', b'null',
             b'[]', b'"' + b'a' * 120000 + b'"']
TOKENS = ['demo:demo', 'demo:demo', 'admin:admin', 'admin:admin', None]
QUERY_KEYS = ['limit', 'marker', 'sort_key', 'sort_dir', 'changes-since', 'changes-before',
              'flavor', 'name', 'status', 'all_tenants', 'deleted', 'minRam', 'minDisk',
              'is_public', 'image', 'host', 'locked', 'tags', 'ip', 'uuid', 'bogus']
SORT_KEYS = ['launched_at', 'terminated_at', 'host', 'node', 'task_state', 'description',
             'display_description', 'key_name', 'locked', 'created_at', 'swap', 'name']


def _around(edges):
    around = set()
    for major, minor in edges:
        around.update({(major, minor), (major, max(minor - 1, 1)), (major, minor + 1)})
    return sorted(v for v in around if mv.in_range(v))


def _method_edges(meth):
    edges = {meth.min_version, meth.max_version}
    for _spec, low, high in getattr(meth.handler, '__schemas__', ()):
        edges.update(e for e in (low, high) if e is not None)
    return edges


def version_boundaries():
    """Every microversion at which some route, schema or view changes, and its neighbours."""
    edges = {mv.MIN, mv.MAX}
    edges.update(v for v in vars(mv).values()
                 if isinstance(v, tuple) and len(v) == 2 and all(isinstance(i, int) for i in v))
    for _path, methods in router.ROUTES:
        for meth in methods.values():
            edges.update(_method_edges(meth))
    return _around(edges)


def route_boundaries(template, method):
    """The versions where this route's range or schemas change (and MIN, MAX)."""
    for path, methods in router.ROUTES:
        if path == template and method in methods:
            return _around(_method_edges(methods[method]) | {mv.MIN, mv.MAX})
    return [mv.MIN]


def compute_routes():
    """(template, method) for every method of the compute route table."""
    return [(path, method) for path, methods in router.ROUTES for method in methods]


def image_routes():
    out = []
    for pattern, methods in image_app.ROUTES:
        template = re.sub(r'\(\?P<(\w+)>[^)]*\)', r'{\1}', pattern)
        out.extend((template, method) for method in methods)
    return out


def volume_routes():
    out = [('/', 'GET'), ('/v3', 'GET')]
    for path, methods, _min in volume_app.ROUTES:
        template = '/v3/{project_id}' + re.sub(r'\(\?P<(\w+)>[^)]*\)', r'{\1}', path)
        out.extend((template, method) for method in methods)
    return out


def identity_routes():
    """The all-in-one's Keystone stand-in (noauth2 only); it has no route table."""
    return [('/', 'GET'), ('/v3', 'GET'), ('/v3/auth/tokens', 'POST'),
            ('/v3/projects', 'GET'), ('/v3/projects/{project_id}', 'GET')]


def quote(text):
    """Percent-encode any str, surrogates included (they become invalid UTF-8)."""
    return urllib.parse.quote(text.encode('utf-8', 'surrogatepass'), safe='')


def fill(template, params):
    return re.sub(r'\{(\w+)\}', lambda m: params.get(m.group(1), 'x'), template)


def encode_body(body):
    """JSON bytes; ensure_ascii escapes surrogates as \\udXXX, as clients may send."""
    if isinstance(body, bytes):
        return body
    return json.dumps(body).encode('ascii')


class RawClient:
    """HTTP/1.1 with raw paths, headers and bodies: nothing re-encoded or checked."""

    def __init__(self, base_url):
        parsed = urllib.parse.urlparse(base_url)
        self.host, self.port = parsed.hostname, parsed.port
        self.prefix = parsed.path.rstrip('/')
        self.requests = 0

    def send(self, method, path, body=None, headers=None):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            conn.putrequest(method, self.prefix + path, skip_accept_encoding=True)
            for key, value in (headers or {}).items():
                conn.putheader(key, value)
            if body is not None:
                conn.putheader('Content-Length', str(len(body)))
            conn.endheaders(body)
            resp = conn.getresponse()
            payload = resp.read()
            self.requests += 1
            return resp.status, payload
        except (BrokenPipeError, ConnectionResetError):
            # The server may answer 413 and close before reading a huge body.
            self.requests += 1
            return 413, b''
        finally:
            conn.close()


def row_counts(engine):
    """Rows per table: a refused request must leave every count unchanged."""
    with engine.connect() as conn:
        return {t.name: conn.execute(sa.select(sa.func.count()).select_from(t)).scalar()
                for t in models.BASE.metadata.sorted_tables}


def wait_quiet(engine, timeout=30):
    """Wait until no task or action event is in flight and the row counts hold still."""
    table = models.InstanceRecord.__table__
    events = models.InstanceActionEventRecord.__table__
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        with engine.connect() as conn:
            busy = conn.execute(sa.select(sa.func.count()).select_from(table).where(
                table.c.deleted == 0, table.c.task_state.is_not(None))).scalar()
            recent = datetime.datetime.utcnow() - datetime.timedelta(seconds=timeout)
            busy += conn.execute(sa.select(sa.func.count()).select_from(events).where(
                events.c.finish_time.is_(None), events.c.start_time > recent)).scalar()
        counts = None if busy else row_counts(engine)
        if counts is not None and counts == last:
            return True
        last = counts
        time.sleep(0.05)
    return False


def schema_for(template, method, version):
    """The body schema the route's handler validates at ``version`` (None if unknown)."""
    for path, methods in router.ROUTES:
        meth = methods.get(method) if path == template else None
        for spec, low, high in getattr(getattr(meth, 'handler', None), '__schemas__', ()):
            if (low is None or version >= low) and (high is None or version <= high):
                return spec(version) if callable(spec) else spec
    return None


def minimal_body(schema, ids):
    """A small value the schema accepts: required properties only, simplest values."""
    schema = schema or {}
    if isinstance(schema, list):  # Draft 4 tuple-style 'items'.
        return minimal_body(schema[0] if schema else {}, ids)
    for key in ('oneOf', 'anyOf'):
        if key in schema:
            return minimal_body(schema[key][0], ids)
    if 'enum' in schema:
        return schema['enum'][0]
    stringy = any(k in schema for k in ('pattern', 'minLength', 'maxLength', 'format'))
    kind = schema.get('type', 'string' if stringy else 'object')
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == 'object':
        props = schema.get('properties', {})
        return {k: minimal_body(props.get(k), ids) for k in schema.get('required', [])}
    if kind == 'string':
        if schema.get('format') == 'uuid':
            return ids.get('uuid', '00000000-0000-0000-0000-000000000000')
        return 'fz' if schema.get('minLength', 0) <= 2 else 'f' * schema['minLength']
    if kind in ('integer', 'number'):
        return max(schema.get('minimum', 1), 1)
    if kind == 'boolean':
        return True
    if kind == 'array':
        return [minimal_body(schema.get('items'), ids)] * schema.get('minItems', 0)
    return None


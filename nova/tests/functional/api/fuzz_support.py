"""Route lists, nasty values and a raw HTTP client for the API fuzz test."""

import datetime
import http.client
import importlib
import json
import os
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
    tables = models.BASE.metadata.sorted_tables
    # One statement: the fuzz counts before and after every refused request.
    query = sa.select(*[sa.select(sa.func.count()).select_from(t).scalar_subquery()
                        .label(t.name) for t in tables])
    with engine.connect() as conn:
        return dict(conn.execute(query).one()._mapping)


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


def handler_schemas(meth):
    """(schema, low, high) ranges of a route method's handler, or of the private function
    it validates through (``create`` checks policy first, then calls ``_create``)."""
    handler = getattr(meth, 'handler', None)
    if handler is None:
        return ()
    ranges = getattr(handler, '__schemas__', None)
    if ranges:
        return ranges
    func = handler.resolve() if hasattr(handler, 'resolve') else handler
    module = importlib.import_module(func.__module__)
    inner = getattr(module, '_' + func.__name__, None)
    return getattr(inner, '__schemas__', ()) if inner is not None else ()


def schema_for(template, method, version):
    """The body schema the route's handler validates at ``version`` (None if unknown)."""
    for path, methods in router.ROUTES:
        meth = methods.get(method) if path == template else None
        for spec, low, high in handler_schemas(meth):
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



# ----------------------------------------------------------- what a request left

# Instance columns a request may change; a refused one must change none of them.
_INSTANCE_DIGEST = ('uuid', 'display_name', 'display_description', 'vm_state', 'task_state',
                    'locked', 'metadata', 'tags', 'image_ref', 'key_name', 'host', 'deleted')


def state(aio):
    """Everything a request can create or change, counted: every table's rows, the
    instances' user-visible columns, the embedded volume endpoint's volumes,
    snapshots and attachments, and the guests libvirt holds."""
    engine = aio.db.engine
    snapshot = dict(row_counts(engine))
    table = models.InstanceRecord.__table__
    with engine.connect() as conn:
        rows = conn.execute(sa.select(*[table.c[c] for c in _INSTANCE_DIGEST])
                            .order_by(table.c.uuid)).fetchall()
    snapshot['instances:columns'] = hash(tuple(tuple(r) for r in rows))
    meta = os.path.join(aio.conf.state_path, 'volumes', 'metadata')
    for kind in ('volumes', 'snapshots', 'attachments'):
        path = os.path.join(meta, kind)
        snapshot['volume:' + kind] = len([n for n in os.listdir(path) if n.endswith('.json')]) \
            if os.path.isdir(path) else 0
    drivers = {id(svc.manager.driver): svc.manager.driver for svc in aio.aio.services[1:]
               if hasattr(getattr(svc, 'manager', None), 'driver')}
    snapshot['libvirt:guests'] = sum(len(d.list_instance_uuids()) for d in drivers.values())
    return snapshot


def diff(before, after):
    return {k: (before.get(k), after.get(k)) for k in set(before) | set(after)
            if before.get(k) != after.get(k)}


# ------------------------------------------------------- bodies from the schemas

def _kind(schema):
    stringy = any(k in schema for k in ('pattern', 'minLength', 'maxLength', 'format'))
    kind = schema.get('type', 'string' if stringy else 'object')
    return kind


def variants(schema, ids, depth=0):
    """Values at the edges of what ``schema`` accepts (and just past them).

    Every oneOf/anyOf branch, objects with only their required keys and with
    every key, array items with optional keys missing (``[{}]``), empty arrays
    and objects, the shortest and longest strings, the smallest and largest
    numbers and one past each. Deduplicated, in a stable order.
    """
    schema = schema if isinstance(schema, dict) else {}
    out = []

    def add(value):
        if value not in out:
            out.append(value)
    for key in ('oneOf', 'anyOf'):
        for branch in schema.get(key, ()):
            for value in variants(branch, ids, depth + 1)[:3]:
                add(value)
    for value in list(schema.get('enum', ()))[:3]:  # Long enums (booleans): a few.
        add(value)
    kinds = _kind(schema)
    for kind in kinds if isinstance(kinds, list) else [kinds]:
        if kind == 'object':
            props = schema.get('properties', {})
            required = schema.get('required', [])
            add({k: minimal_body(props.get(k), ids) for k in required})
            if depth < 3 and props:
                add({k: minimal_body(v, ids) for k, v in props.items()})
        elif kind == 'array':
            items = schema.get('items', {})
            add([])
            for item in variants(items, ids, depth + 1)[:4] if depth < 3 else ():
                add([item])
            if schema.get('maxItems') is not None:
                add([minimal_body(items, ids)] * (schema['maxItems'] + 1))
        elif kind == 'string':
            if schema.get('format') == 'uuid':
                add(ids.get('uuid', '00000000-0000-0000-0000-000000000000'))
            low, high = schema.get('minLength', 0), schema.get('maxLength')
            add('f' * low)
            if low:
                add('f' * (low - 1))
            if high is not None:
                add('f' * high)
                add('f' * (high + 1))
        elif kind in ('integer', 'number'):
            for bound, step in (('minimum', -1), ('maximum', 1)):
                if bound in schema:
                    add(schema[bound])
                    add(schema[bound] + step)
            add(0)
        elif kind == 'boolean':
            add(True)
            add(False)
        elif kind == 'null':
            add(None)
    return out


def schema_cases(schema, base, ids, limit=200):
    """(path, body): ``base`` with one property, at any depth, replaced by each variant
    of that property's own schema; the whole body's variants too."""
    cases = []

    def walk(spec, node, path):
        spec = spec if isinstance(spec, dict) else {}
        for key, sub in spec.get('properties', {}).items():
            for value in variants(sub, ids):
                body = json.loads(json.dumps(base))
                target = body
                for step in path:
                    target = target[step]
                if isinstance(target, dict):
                    target[key] = value
                    cases.append(('/'.join(path + [key]), body))
            if isinstance(node, dict) and isinstance(node.get(key), dict):
                walk(sub, node[key], path + [key])
    walk(schema, base, [])
    cases.extend(('', value) for value in variants(schema, ids))
    return cases[:limit]

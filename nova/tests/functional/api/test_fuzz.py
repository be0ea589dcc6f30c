"""Property-based fuzz of every route at every microversion boundary: never a 500.

The routes come from the route tables (compute, embedded image and volume
endpoints), so a new route is fuzzed without editing this file. Bodies are
valid-looking requests with one part replaced by a nasty value, raw texts
no encoder produces, and bodies derived from the request schemas themselves
(every property at its edges: each oneOf/anyOf branch, items with optional
keys missing, empty arrays and objects, minimum/maximum lengths and numbers
and one past them). A refused request (4xx) and a failed one (5xx) must leave
everything as it was: every table's row count, the instances' visible
columns, the embedded volume endpoint's volumes and attachments, and the
guests in libvirt (fuzz_support.state). The random phase's budget is
NOVA_FUZZ_SECONDS (default 50); the schema phase is bounded by count.
"""

import json
import os
import random
import time

import hypothesis
import pytest
from hypothesis import strategies as st

from nova.api import microversion as mv
from nova.api import router
from nova.tests.functional.api import fuzz_support as fz
from nova.tests.functional.api.conftest import server_body

BUDGET = float(os.environ.get('NOVA_FUZZ_SECONDS', '50'))
COUNT_FIELDS = ('min_count', 'max_count')
# Schema cases per route and version (POST /servers: its many properties).
SCHEMA_CASES = 40
SERVER_CASES = 120
# Parts of POST /servers whose handling another change owns (networking): what
# the fuzz finds there is printed in its report, not failed here.
ELSEWHERE = ('server/networks', 'server/security_groups')


@pytest.fixture(scope='module')
def target(aio, image, nano):
    status, _h, body = aio.request('POST', '/servers', server_body(image, name='fuzzed'),
                                   version='2.37')
    assert status == 202, body
    server_id = body['server']['id']
    aio.wait_for_status(server_id, ['ACTIVE'])
    assert fz.wait_quiet(aio.db.engine)
    return {'server_id': server_id, 'image_id': image, 'flavor_id': nano,
            'volume_id': '00000000-0000-0000-0000-000000000000'}


class Fuzzer:
    """Sends one request, checks it, and keeps the tallies for the report."""

    def __init__(self, aio, target):
        self.aio, self.target = aio, target
        self.clients = {'compute': fz.RawClient(aio.compute_url),
                        'image': fz.RawClient(aio.image_url),
                        'volume': fz.RawClient(aio.aio.urls['volume'])}
        if 'identity' in aio.aio.urls:
            self.clients['identity'] = fz.RawClient(aio.aio.urls['identity'])
        self.failures, self.statuses, self.elsewhere = [], {}, []
        self.deadline = None
        self.counts = fz.state(aio)

    @property
    def requests(self):
        return sum(c.requests for c in self.clients.values())

    def base_body(self, template, method, version, action=None):
        """A request body the route would accept (so a mutation reaches deep code)."""
        t = self.target
        if template == '/servers' and method == 'POST':
            return server_body(t['image_id'], version=mv.as_string(version), name='fz')
        if template == '/servers/{server_id}/action':
            return {action: _ACTION_BODIES.get(action, lambda t: None)(t)}
        if (template, method) in _BODIES:
            return _BODIES[(template, method)](t)
        # New routes: a minimal body their own schema accepts, found in the route table.
        schema = fz.schema_for(template, method, version)
        return fz.minimal_body(schema, {'uuid': t['image_id']}) if schema else None

    def check(self, service, method, path, body, headers, description, owner=None):
        if self.deadline is not None and time.monotonic() > self.deadline:
            return None  # Over budget: the case was drawn (hypothesis needs that), not sent.
        before = self.counts
        status, payload = self.clients[service].send(method, path, body, headers)
        self.statuses[status] = self.statuses.get(status, 0) + 1
        failures = self.elsewhere if owner else self.failures
        if status >= 500:
            failures.append('%s %s -> %d %r (%s)' % (method, path[:200], status,
                                                    payload[:300], description))
        if 200 <= status < 300 and method not in ('GET', 'HEAD'):
            fz.wait_quiet(self.aio.db.engine)
            self.counts = fz.state(self.aio)
        elif status >= 400:
            if status >= 500:
                # What a failed request started must end, then nothing may be left.
                fz.wait_quiet(self.aio.db.engine)
            after = fz.state(self.aio)
            changed = fz.diff(before, after)
            if changed and _tried_on_the_host(payload, changed):
                # Not a refusal: the host tried and failed (test:///default cannot
                # hot-plug); the action and its failed event are the record of it.
                changed = None
                self.counts = after
            if changed:
                failures.append('%s %s -> %d changed %s (%s)' % (
                    method, path[:200], status, changed, description))
                self.counts = after
        return status

    def clean_up_servers(self, keep):
        """Delete what accepted creates made, so quotas keep letting cases through."""
        extra = [r['uuid'] for r in self.aio.db.instance_get_all({}) if r['uuid'] not in keep]
        for uuid in extra:
            self.aio.request('DELETE', '/servers/' + uuid, token='admin:admin')
        deadline = time.monotonic() + 60
        while extra and time.monotonic() < deadline:
            live = {r['uuid'] for r in self.aio.db.instance_get_all({})}
            extra = [uuid for uuid in extra if uuid in live]
            time.sleep(0.05)
        fz.wait_quiet(self.aio.db.engine)
        self.counts = fz.state(self.aio)


class HypothesisDraws:
    """Choices drawn by hypothesis (random phase)."""

    def __init__(self, data):
        self.data = data

    def pick(self, seq):
        return self.data.draw(st.sampled_from(seq))

    def int(self, low, high):
        return self.data.draw(st.integers(low, high))

    def flag(self):
        return self.data.draw(st.booleans())

    def nasty(self):
        return self.data.draw(_nasty_values)


class SeededDraws:
    """The same choices from a seeded generator, for the exhaustive sweep."""

    _NASTY = fz.NASTY_TEXT + fz.NASTY_NUMBERS + fz.NASTY_OTHER

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def pick(self, seq):
        return self.rng.choice(list(seq))

    def int(self, low, high):
        return self.rng.randint(low, high)

    def flag(self):
        return self.rng.random() < 0.5

    def nasty(self):
        return self.rng.choice(self._NASTY)


def _mutate(body, d):
    """Replace one leaf of ``body`` (or add a key) with a nasty value."""
    nasty = d.nasty()
    if not isinstance(body, dict) or d.int(0, 9) == 0:
        return nasty
    node, path = body, []
    while isinstance(node, dict) and node and d.flag():
        key = d.pick(sorted(node))
        path.append(key)
        if not isinstance(node[key], dict):
            break
        node = node[key]
    parent = body
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1] if path else d.pick(['name', 'min_count', 'user_data',
                                                      'bogus', 'metadata', 'tags'])
    if key in COUNT_FIELDS and isinstance(nasty, int) and 1 < nasty <= fz.MAX_INT:
        nasty = 3  # Keep accepted multi-creates small; quotas bound them upstream.
    if isinstance(parent, dict):
        parent[key] = nasty
    return body


_nasty_values = st.one_of(
    st.sampled_from(fz.NASTY_TEXT), st.sampled_from(fz.NASTY_NUMBERS),
    st.sampled_from(fz.NASTY_OTHER), st.text(max_size=20),
    st.integers(min_value=-2 ** 70, max_value=2 ** 70),
    st.recursive(st.none() | st.integers() | st.text(max_size=5),
                 lambda inner: st.lists(inner, max_size=3)
                 | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                 max_leaves=10))

def _tried_on_the_host(payload, changed):
    """An interface attach the host tried: only the action tables changed."""
    return (b'Failed to attach network adapter device' in (payload or b'')
            and set(changed) <= {'instance_actions', 'instance_actions_events'})


_BODIES = {
    ('/servers/{server_id}', 'PUT'): lambda t: {'server': {'name': 'fz'}},
    ('/flavors', 'POST'): lambda t: {'flavor': {'name': 'fz', 'ram': 1, 'vcpus': 1,
                                                'disk': 0}},
    ('/servers/{server_id}/metadata', 'POST'): lambda t: {'metadata': {'k': 'v'}},
    ('/servers/{server_id}/metadata', 'PUT'): lambda t: {'metadata': {'k': 'v'}},
    ('/servers/{server_id}/metadata/{key}', 'PUT'): lambda t: {'meta': {'k': 'v'}},
    ('/servers/{server_id}/tags', 'PUT'): lambda t: {'tags': ['a']},
    ('/servers/{server_id}/os-volume_attachments', 'POST'):
        lambda t: {'volumeAttachment': {'volumeId': t['volume_id']}},
    ('/servers/{server_id}/os-volume_attachments/{volume_id}', 'PUT'):
        lambda t: {'volumeAttachment': {'volumeId': t['volume_id']}},
    ('/v2/images', 'POST'): lambda t: {'name': 'fz', 'disk_format': 'raw',
                                       'container_format': 'bare'},
    ('/v3/{project_id}/volumes', 'POST'): lambda t: {'volume': {'size': 1}},
    ('/v3/auth/tokens', 'POST'): lambda t: {'auth': {
        'identity': {'methods': ['password'], 'password': {'user': {
            'name': 'demo', 'domain': {'id': 'default'}, 'password': 'x'}}},
        'scope': {'project': {'name': 'demo', 'domain': {'id': 'default'}}}}},
}
_ACTION_BODIES = {
    'reboot': lambda t: {'type': 'SOFT'},
    'lock': lambda t: {'locked_reason': 'fz'},
    'os-getConsoleOutput': lambda t: {'length': 5},
    'createImage': lambda t: {'name': 'fz', 'metadata': {}},
    'rebuild': lambda t: {'imageRef': t['image_id']},
    'rescue': lambda t: {'rescue_image_ref': t['image_id']},
}


def _path_params(d, template, method, target):
    """Real ids mostly (to reach deep code), nasty ones otherwise; never delete ours."""
    names = [n for n in ('server_id', 'flavor_id', 'image_id', 'volume_id', 'key', 'tag',
                         'request_id', 'project_id', 'name', 'attachment_id',
                         'snapshot_id', 'type_id') if '{%s}' % n in template]
    params = {}
    for i, name in enumerate(names):
        last_of_delete = method == 'DELETE' and i == len(names) - 1
        real = target.get(name, 'k')
        if name == 'project_id':
            real = 'demo'
        choice = d.pick(['real', 'nasty'] if not last_of_delete else ['nasty'])
        value = real if choice == 'real' else d.pick(fz.NASTY_TEXT)
        params[name] = fz.quote(value) if value != '%ff' else '%ff'
    return params


def _query(d):
    if not d.flag():
        return ''
    pairs = []
    for _ in range(d.int(1, 3)):
        key = d.pick(fz.QUERY_KEYS)
        value = d.pick(fz.NASTY_TEXT + fz.SORT_KEYS + ['asc', 'desc', '5'])
        pairs.append('%s=%s' % (key, value if value == '%ff' else fz.quote(value)))
    return '?' + '&'.join(pairs)


def _headers(d, version, has_body):
    headers = {}
    token = d.pick(fz.TOKENS)
    if token:
        headers['X-Auth-Token'] = token
        headers['X-Auth-Project-Id'] = token.split(':')[1]
    text = mv.as_string(version)
    if d.int(0, 19) == 0:
        text = d.pick(['2.' + '9' * 5000, '2.\u0663', '3.0', 'latest', '',
                                     '2.1.1', ' 2.1', '1' * 40 + '.0'])
    headers['OpenStack-API-Version'] = 'compute %s' % text.encode(
        'latin-1', 'replace').decode('latin-1')
    if has_body:
        headers['Content-Type'] = d.pick(
            ['application/json'] * 8 + ['text/plain', 'application/xml'])
    return headers


def _one_request(fuzzer, d, template, method, version, service):
    action = None
    if template.endswith('/action'):
        action = d.pick(sorted(router.SERVER_ACTIONS) + ['bogus'])
    body = fuzzer.base_body(template, method, version, action)
    if method in ('POST', 'PUT', 'PATCH') or d.int(0, 9) == 0:
        raw = d.pick(fz.NASTY_RAW) if d.int(0, 7) == 0 else None
        body = raw if raw is not None else fz.encode_body(_mutate(body, d))
    else:
        body = None
    path = fz.fill(template, _path_params(d, template, method, fuzzer.target))
    path += _query(d)
    headers = _headers(d, version, body is not None)
    if service == 'volume':
        headers['OpenStack-API-Version'] = 'volume 3.%d' % d.int(0, 72)
    description = 'version %s, body %r' % (mv.as_string(version), (body or b'')[:200])
    return fuzzer.check(service, method, path, body, headers, description)


def _route_strategy():
    routes = [('compute', t, m) for t, m in fz.compute_routes()]
    routes += [('image', t, m) for t, m in fz.image_routes()]
    routes += [('volume', t, m) for t, m in fz.volume_routes()]
    routes += [('identity', t, m) for t, m in fz.identity_routes()]
    return routes


def schema_phase(fuzzer, target):
    """Each compute body schema, at the first version it serves and at MAX, case by case.

    A case is a valid body with one property (at any depth) replaced by one
    of its schema's edge values (fuzz_support.variants); accepted creates are
    deleted after each case so the quota keeps letting the next ones in.
    """
    keep = {target['server_id']}
    ids = {'uuid': target['image_id']}
    created = 0
    for template, method in fz.compute_routes():
        meth = next(m for p, ms in router.ROUTES if p == template for k, m in ms.items()
                    if k == method)
        ranges = fz.handler_schemas(meth)
        versions = sorted({low or mv.MIN for _s, low, _h in ranges} | ({mv.MAX} if ranges
                                                                        else set()))
        creates = (template, method) == ('/servers', 'POST')
        if creates:
            # Every case that passes boots a server: the oldest and newest schemas only.
            versions = [mv.MIN, mv.MAX]
        for version in versions:
            schema = fz.schema_for(template, method, version)
            if schema is None:
                continue
            base = fuzzer.base_body(template, method, version)
            limit = SERVER_CASES if creates and version == mv.MAX else SCHEMA_CASES
            params = {k: fz.quote(str(v)) for k, v in target.items()}
            path = fz.fill(template, params)
            headers = {'X-Auth-Token': 'admin:admin' if 'os-' in template or
                       'flavors' in template else 'demo:demo',
                       'OpenStack-API-Version': 'compute %s' % mv.as_string(version),
                       'Content-Type': 'application/json'}
            for where, body in fz.schema_cases(schema, base, ids, limit=limit):
                owner = where.startswith(ELSEWHERE) if creates else False
                status = fuzzer.check('compute', method, path, fz.encode_body(body), headers,
                                      'schema case %s at %s: %r' % (
                                          where or '(body)', mv.as_string(version),
                                          json.dumps(body)[:200]), owner=owner)
                if creates and status is not None and status < 300:
                    created += 1
                    if created % 5 == 0:
                        fuzzer.clean_up_servers(keep)
    fuzzer.clean_up_servers(keep)


def test_fuzz_never_500_and_refusals_change_nothing(aio, target):
    fuzzer = Fuzzer(aio, target)
    versions = fz.version_boundaries()
    routes = [r for r in _route_strategy() if r[0] in fuzzer.clients]
    start = time.monotonic()
    # 1. A sweep: every route and method at its own version boundaries, and
    # every global boundary on some compute route (round robin).
    draws = SeededDraws(1234)
    compute = [r for r in routes if r[0] == 'compute']
    sweep = [(r, v) for r in routes for v in fz.route_boundaries(r[1], r[2])]
    sweep += [(compute[i % len(compute)], v) for i, v in enumerate(versions)]
    for (service, template, method), version in sweep:
        _one_request(fuzzer, draws, template, method, version, service)
    swept = fuzzer.requests
    # 2. Bodies from the schemas: every property of every body schema at its edges.
    schema_start = time.monotonic()
    schema_phase(fuzzer, target)
    schema_cases, schema_seconds = fuzzer.requests - swept, time.monotonic() - schema_start
    swept = fuzzer.requests
    # 3. Random cases for the rest of the budget (rate measured on the sweep).
    random_start = time.monotonic()
    rate = (swept - schema_cases) / max(schema_start - start, 0.001)
    examples = int(rate * BUDGET)
    fuzzer.deadline = random_start + BUDGET

    @hypothesis.given(st.sampled_from(routes), st.sampled_from(versions), st.data())
    @hypothesis.settings(max_examples=max(examples, 1), deadline=None, database=None,
                         phases=[hypothesis.Phase.generate],
                         suppress_health_check=list(hypothesis.HealthCheck))
    def random_case(route, version, data):
        service, template, method = route
        _one_request(fuzzer, HypothesisDraws(data), template, method, version, service)

    if examples:
        random_case()
    report = {'requests': fuzzer.requests, 'sweep_cases': swept - schema_cases,
              'schema_cases': schema_cases, 'schema_seconds': round(schema_seconds, 1),
              'elsewhere': fuzzer.elsewhere, 'routes': len(routes),
              'versions': len(versions), 'statuses': fuzzer.statuses,
              'failures': len(fuzzer.failures), 'seconds': round(time.monotonic() - start, 1)}
    print('fuzz report: %s' % json.dumps(report, sort_keys=True))
    assert not fuzzer.failures, '%d failures:\n%s' % (
        len(fuzzer.failures), '\n'.join(fuzzer.failures[:40]))

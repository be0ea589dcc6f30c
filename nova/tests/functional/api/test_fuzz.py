"""Property-based fuzz of every route at every microversion boundary: never a 500.

The routes come from the route tables (compute, embedded image and volume
endpoints), so a new route is fuzzed without editing this file. Bodies are
valid-looking requests with one part replaced by a nasty value, or raw texts
no encoder produces. A refused request (4xx) must leave every table's row
count unchanged. The budget is NOVA_FUZZ_SECONDS (default 75) in total.
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

BUDGET = float(os.environ.get('NOVA_FUZZ_SECONDS', '75'))
COUNT_FIELDS = ('min_count', 'max_count')


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
        self.failures, self.statuses = [], {}
        self.deadline = None
        self.counts = fz.row_counts(aio.db.engine)

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

    def check(self, service, method, path, body, headers, description):
        if self.deadline is not None and time.monotonic() > self.deadline:
            return None  # Over budget: the case was drawn (hypothesis needs that), not sent.
        before = self.counts
        status, payload = self.clients[service].send(method, path, body, headers)
        self.statuses[status] = self.statuses.get(status, 0) + 1
        if status >= 500:
            self.failures.append('%s %s -> %d %r (%s)' % (method, path[:200], status,
                                                         payload[:300], description))
            return status
        if 200 <= status < 300 and method not in ('GET', 'HEAD'):
            fz.wait_quiet(self.aio.db.engine)
            self.counts = fz.row_counts(self.aio.db.engine)
        elif status >= 400:
            after = fz.row_counts(self.aio.db.engine)
            if after != before:
                changed = {k: (before[k], after[k]) for k in after if after[k] != before[k]}
                self.failures.append('%s %s -> %d changed rows %s (%s)' % (
                    method, path[:200], status, changed, description))
                self.counts = after
        return status


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
    # 2. Random cases for the rest of the budget (rate measured on the sweep).
    rate = swept / max(time.monotonic() - start, 0.001)
    remaining = max(BUDGET - (time.monotonic() - start), 0)
    examples = int(rate * remaining)
    fuzzer.deadline = start + BUDGET

    @hypothesis.given(st.sampled_from(routes), st.sampled_from(versions), st.data())
    @hypothesis.settings(max_examples=max(examples, 1), deadline=None, database=None,
                         phases=[hypothesis.Phase.generate],
                         suppress_health_check=list(hypothesis.HealthCheck))
    def random_case(route, version, data):
        service, template, method = route
        _one_request(fuzzer, HypothesisDraws(data), template, method, version, service)

    if examples:
        random_case()
    report = {'requests': fuzzer.requests, 'sweep_cases': swept, 'routes': len(routes),
              'versions': len(versions), 'statuses': fuzzer.statuses,
              'failures': len(fuzzer.failures), 'seconds': round(time.monotonic() - start, 1)}
    print('fuzz report: %s' % json.dumps(report, sort_keys=True))
    assert not fuzzer.failures, '%d failures:\n%s' % (
        len(fuzzer.failures), '\n'.join(fuzzer.failures[:40]))

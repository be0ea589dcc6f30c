"""limit/marker paging of /servers and /servers/detail, following the next links."""

import pytest

from nova.tests.functional.api.conftest import server_body

TOKEN = 'pager:pager'
COUNT = 7


@pytest.fixture(scope='module')
def servers(aio, image, nano):
    """Seven servers of one request: same created_at, so paging must break ties."""
    body = server_body(image, name='pg', min_count=COUNT, max_count=COUNT)
    status, _h, resp = aio.request('POST', '/servers', body, version='2.37', token=TOKEN)
    assert status == 202, resp
    status, _h, resp = aio.request('GET', '/servers', token=TOKEN)
    assert len(resp['servers']) == COUNT
    return [s['id'] for s in resp['servers']]


def _walk(aio, path, limit):
    """Every page's ids, following servers_links until there is none."""
    pages = []
    status, _h, body = aio.request('GET', '%s?limit=%d' % (path, limit), token=TOKEN)
    while True:
        assert status == 200, body
        pages.append([s['id'] for s in body['servers']])
        assert all(('status' in s) == path.endswith('/detail') for s in body['servers'])
        links = body.get('servers_links')
        if not links:
            return pages
        assert [link['rel'] for link in links] == ['next']
        # The next page is the same collection (detail stays detail), same limit.
        assert links[0]['href'].startswith(aio.compute_url + path + '?')
        assert 'limit=%d' % limit in links[0]['href']
        status, _h, body = aio.request('GET', '', url=links[0]['href'], token=TOKEN)


@pytest.mark.parametrize('path', ['/servers', '/servers/detail'])
@pytest.mark.parametrize('limit', [1, 3, 7])
def test_pages_cover_everything_once(aio, servers, path, limit):
    pages = _walk(aio, path, limit)
    assert [len(p) for p in pages[:-1]] == [limit] * (len(pages) - 1)
    assert sum(pages, []) == servers          # same order as one big page, no repeats
    # A full last page still gets a next link, which then answers an empty page.
    assert pages[-1] or COUNT % limit == 0


@pytest.mark.parametrize('path', ['/servers', '/servers/detail'])
def test_marker_starts_after_it(aio, servers, path):
    status, _h, body = aio.request('GET', '%s?marker=%s' % (path, servers[2]), token=TOKEN)
    assert status == 200
    assert [s['id'] for s in body['servers']] == servers[3:]


@pytest.mark.parametrize('path', ['/servers', '/servers/detail'])
def test_unknown_marker_is_400(aio, servers, path):
    status, _h, body = aio.request('GET', path + '?marker=00000000-0000-0000-0000-000000000000',
                                   token=TOKEN)
    assert status == 400
    assert 'marker' in body['badRequest']['message']


def test_no_next_link_without_full_page(aio, servers):
    body = aio.request('GET', '/servers?limit=%d' % (COUNT + 1), token=TOKEN)[2]
    assert len(body['servers']) == COUNT and 'servers_links' not in body


@pytest.mark.parametrize('sort_key', ['launched_at', 'terminated_at', 'host', 'key_name',
                                      'display_description', 'locked', 'task_state'])
def test_marker_on_a_null_sort_column_is_not_an_error(aio, servers, sort_key):
    # terminated_at, key_name... are NULL for every server here: the marker's
    # own value is NULL, which keyset pagination must cope with.
    status, _h, body = aio.request(
        'GET', '/servers?sort_key=%s&sort_dir=asc&limit=2' % sort_key, token='admin:admin')
    assert status == 200, body
    status, _h, body = aio.request(
        'GET', '/servers?all_tenants=1&sort_key=%s&marker=%s' % (sort_key, servers[0]),
        token='admin:admin')
    assert status == 200, body


def test_flavor_filter_applies_before_the_limit(aio, servers, image):
    """Newer servers of another flavor must not crowd the filtered page out."""
    status, _h, resp = aio.request('POST', '/flavors', {'flavor': {
        'name': 'other', 'id': 'other', 'ram': 1, 'vcpus': 1, 'disk': 0}},
        token='admin:admin')
    assert status == 200, resp
    body = server_body(image, name='newer', flavor='other', min_count=3, max_count=3)
    assert aio.request('POST', '/servers', body, version='2.37', token=TOKEN)[0] == 202
    status, _h, body = aio.request('GET', '/servers/detail?flavor=nano&limit=2', token=TOKEN)
    assert status == 200, body
    assert [s['id'] for s in body['servers']] == servers[:2]
    status, _h, body = aio.request('GET', '/servers?flavor=other', token=TOKEN)
    assert len(body['servers']) == 3

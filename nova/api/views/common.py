"""Shared pieces of response bodies: links, timestamps, pagination links."""

import urllib.parse


def isotime(value):
    """'2012-08-20T21:11:09Z', the format of created/updated fields."""
    return value.strftime('%Y-%m-%dT%H:%M:%SZ') if value is not None else None


def usg_time(value):
    """'2013-05-15T17:35:30.000000', the format of OS-SRV-USG fields."""
    return value.strftime('%Y-%m-%dT%H:%M:%S.%f') if value is not None else None


def links(req, collection, item_id):
    return [{'rel': 'self', 'href': req.url_for(collection, item_id)},
            {'rel': 'bookmark', 'href': req.url_for(collection, item_id, versioned=False)}]


def bookmark(req, collection, item_id):
    return [{'rel': 'bookmark', 'href': req.url_for(collection, item_id, versioned=False)}]


def next_link(req, collection, items, limit, id_key='id'):
    """A `next` link when the page is full, carrying the request's own params."""
    if not items or limit is None or len(items) < limit:
        return []
    params = [(k, v) for k, v in req.GET.items() if k != 'marker']
    params.append(('marker', items[-1][id_key]))
    return [{'rel': 'next', 'href': '%s?%s' % (req.url_for(collection),
                                               urllib.parse.urlencode(params))}]

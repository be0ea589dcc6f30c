"""List requests as Neutron serves them: filters, fields, sort_key/sort_dir, limit/marker pages."""

import urllib.parse

from nova.embedded.network import errors

# Query parameters that shape a list instead of filtering it.
CONTROL = ('fields', 'sort_key', 'sort_dir', 'limit', 'marker', 'page_reverse')


def fields_of(req):
    """The ``fields`` asked for (repeated parameter), or None for all."""
    wanted = [f for f in req.GET.getall('fields') if f]
    return wanted or None


def select_fields(item, fields):
    if not fields:
        return item
    return {k: item[k] for k in fields if k in item}


def _fixed_ip_filter(values):
    """``fixed_ips=ip_address=X`` / ``subnet_id=Y`` / ``ip_address_substr=Z``."""
    wanted = {}
    for value in values:
        key, sep, val = value.partition('=')
        if not sep or key not in ('ip_address', 'subnet_id', 'ip_address_substr'):
            raise errors.NeutronInvalidInput("'%s' is not of the form <key>=[value]" % value)
        wanted.setdefault(key, []).append(val)

    def match(item):
        ips = item.get('fixed_ips') or []
        for key, vals in wanted.items():
            if key == 'ip_address_substr':
                ok = any(val in ip['ip_address'] for ip in ips for val in vals)
            else:
                ok = any(ip.get(key) in vals for ip in ips)
            if not ok:
                return False
        return True
    return match


def _value_filter(key, values, attr):
    if attr.filter_convert is not None:
        values = [attr.filter_convert(val) for val in values]

    def match(item):
        got = item.get(key)
        if isinstance(got, list):
            # security_groups, tags: any listed value matches.
            return any(val in got for val in values)
        if isinstance(got, bool) or got is None:
            return got in values or str(got) in values
        return got in values or str(got) in values
    return match


def filters_of(req, attrs, extra=()):
    """Predicates over built items for the query's filters; 400 for unknown ones.

    ``extra`` names filters a resource handles itself (taken out here).
    """
    params = req.GET.dict_of_lists()
    predicates = []
    invalid = []
    for key, values in params.items():
        if key in CONTROL or key in extra:
            continue
        attr = attrs.get(key)
        if attr is None or not attr.filter:
            invalid.append(key)
            continue
        if key == 'fixed_ips':
            predicates.append(_fixed_ip_filter(values))
        else:
            predicates.append(_value_filter(key, values, attr))
    if invalid:
        raise errors.NeutronBadRequest('%s is invalid attribute for filtering' % invalid)
    return predicates


def _sorts(req, attrs):
    keys = [k for k in req.GET.getall('sort_key') if k]
    dirs = [d for d in req.GET.getall('sort_dir') if d]
    if len(keys) != len(dirs):
        raise errors.NeutronBadRequest('The number of sort_keys and sort_dirs must be same')
    absent = [k for k in keys if k not in attrs or not attrs[k].sort]
    if absent:
        raise errors.NeutronBadRequest('%s is invalid attribute for sort_keys' % absent)
    bad = [d for d in dirs if d not in ('asc', 'desc')]
    if bad:
        raise errors.NeutronBadRequest("%s is invalid value for sort_dirs, valid value "
                                       "is 'asc' and 'desc'" % bad)
    return list(zip(keys, [d == 'asc' for d in dirs]))


def _limit(req):
    raw = req.GET.get('limit', '0')
    try:
        limit = int(raw)
        if limit >= 0:
            return limit
    except ValueError:
        pass
    raise errors.NeutronBadRequest("Bad limit request: Limit must be an integer 0 or "
                                   "greater and not '%s'." % raw, kind='BadRequest')


def _sort_value(value):
    # None first, then values of one type; mixed types compare as text.
    if value is None:
        return (0, '')
    if isinstance(value, bool):
        return (1, int(value))
    if isinstance(value, (int, float)):
        return (1, value)
    return (2, str(value))


def _link(req, marker, reverse):
    params = [(k, val) for k, val in req.GET.items() if k not in ('marker', 'page_reverse')]
    if marker is not None:
        params.append(('marker', marker))
    if reverse:
        params.append(('page_reverse', 'True'))
    return '%s?%s' % (req.path_url, urllib.parse.urlencode(params))


def page(req, collection, items, attrs):
    """The response body of a list: sorted, paged, with ``<collection>_links``."""
    sorts = _sorts(req, attrs)
    limit = _limit(req)
    marker = req.GET.get('marker')
    reverse = req.GET.get('page_reverse', 'False').lower() == 'true'
    if sorts or limit:
        # Native pagination: the sort keys, then id ascending, decide the order.
        keys = sorts + ([('id', True)] if 'id' not in dict(sorts) else [])
        for key, ascending in reversed(keys):
            items.sort(key=lambda i, k=key: _sort_value(i.get(k)), reverse=not ascending)
    body = {}
    if limit:
        ids = [i['id'] for i in items]
        if marker is not None:
            start = ids.index(marker) if marker in ids else None
        else:
            start = len(items) if reverse else 0
        if start is None:
            chosen = []
        elif reverse:
            chosen = items[max(start - limit, 0):start]
        else:
            start += 1 if marker is not None else 0
            chosen = items[start:start + limit]
        links = []
        if not (len(chosen) < limit and not reverse):
            links.append({'rel': 'next', 'href': _link(
                req, chosen[-1]['id'] if chosen else None, False)})
        if not (len(chosen) < limit and reverse):
            links.append({'rel': 'previous', 'href': _link(
                req, chosen[0]['id'] if chosen else None, True)})
        items = chosen
        body[collection + '_links'] = links
    body[collection] = items
    return body


def list_response(req, collection, items, attrs, predicates=()):
    """Filter built items, then sort, page and select fields."""
    chosen = [i for i in items if all(p(i) for p in predicates)]
    body = page(req, collection, chosen, attrs)
    fields = fields_of(req)
    if fields:
        body[collection] = [select_fields(i, fields) for i in body[collection]]
    return body

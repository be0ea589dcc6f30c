"""GET /v2/images query semantics: Glance's filters, sort keys and marker paging."""

from nova.embedded.image import access

DEFAULT_LIMIT = 25   # Glance's limit_param_default
MAX_LIMIT = 1000     # Glance's api_limit_max
SORT_KEYS = ('name', 'status', 'container_format', 'disk_format', 'size', 'id',
             'created_at', 'updated_at')
VISIBILITY_FILTERS = ('community', 'public', 'private', 'shared', 'all')
MEMBER_STATUSES = ('pending', 'accepted', 'rejected', 'all')
_OPERATORS = ('eq', 'neq', 'in', 'gt', 'gte', 'lt', 'lte')
_TRUE = ('1', 't', 'true', 'on', 'y', 'yes')
_FALSE = ('0', 'f', 'false', 'off', 'n', 'no')
# Query parameters that are not "attribute equals value" filters.
_CONTROL = ('limit', 'marker', 'sort', 'sort_key', 'sort_dir', 'member_status',
            'visibility', 'tag', 'os_hidden', 'protected', 'size_min',
            'size_max')


class BadQuery(ValueError):
    """A query parameter Glance would answer with 400."""


class Query:
    """A parsed GET /v2/images query."""

    def __init__(self, items):
        params = {}
        for key, value in items:
            params.setdefault(key, []).append(value)
        self.limit = _limit(params)
        self.marker = _last(params, 'marker')
        self.sort = _sorting(params)
        self.visibility = _visibility(params)
        self.os_hidden = _bool(params, 'os_hidden', default=False)
        self.protected = _bool(params, 'protected')
        self.tags = params.get('tag', [])
        self.size_min = _int(params, 'size_min')
        self.size_max = _int(params, 'size_max')
        self.member_status = _last(params, 'member_status', 'accepted')
        if self.member_status not in MEMBER_STATUSES:
            raise BadQuery('Invalid status: %s' % self.member_status)
        if 'changes-since' in params:
            raise BadQuery('The "changes-since" filter is no longer '
                           'available on v2.')
        self.filters = [(key, _split_op(values[-1]))
                        for key, values in params.items()
                        if key not in _CONTROL]


def _last(params, key, default=None):
    values = params.get(key)
    return values[-1] if values else default


def _limit(params):
    raw = _last(params, 'limit')
    if raw is None:
        return DEFAULT_LIMIT
    try:
        limit = int(raw)
    except ValueError:
        raise BadQuery('limit param must be an integer') from None
    if limit < 0:
        raise BadQuery('limit param must be positive')
    return min(limit, MAX_LIMIT)


def _int(params, key):
    raw = _last(params, key)
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        raise BadQuery('Invalid value for %s: %s' % (key, raw)) from None


def _bool(params, key, default=None):
    raw = _last(params, key)
    if raw is None:
        return default
    if raw.strip().lower() in _TRUE:
        return True
    if raw.strip().lower() in _FALSE:
        return False
    raise BadQuery('Invalid value for %s: %s' % (key, raw))


def _visibility(params):
    value = _last(params, 'visibility')
    if value is not None and value not in VISIBILITY_FILTERS:
        raise BadQuery('Invalid visibility value: %s' % value)
    return value


def _sorting(params):
    """[(key, 'asc'|'desc')] from either sort syntax Glance accepts."""
    if 'sort' in params:
        if 'sort_key' in params or 'sort_dir' in params:
            raise BadQuery('Old and new sorting syntax cannot be combined')
        pairs = []
        for item in params['sort'][-1].split(','):
            key, _sep, direction = item.partition(':')
            pairs.append((key.strip(), direction.strip() or 'desc'))
    else:
        keys = params.get('sort_key', []) or ['created_at']
        dirs = params.get('sort_dir', []) or ['desc']
        if len(dirs) > 1 and len(dirs) != len(keys):
            raise BadQuery('Number of sort dirs does not match the number '
                           'of sort keys')
        if len(dirs) == 1:
            dirs = dirs * len(keys)
        pairs = list(zip((k.strip() for k in keys), (d.strip() for d in dirs)))
    for key, direction in pairs:
        if key not in SORT_KEYS:
            raise BadQuery('Invalid sort key: %s. It must be one of the '
                           'following: %s.' % (key, ', '.join(SORT_KEYS)))
        if direction not in ('asc', 'desc'):
            raise BadQuery('Invalid sort direction: %s' % direction)
    return pairs


def _split_op(value):
    """'in:a,b' -> ('in', ['a', 'b']); a value without operator is 'eq'."""
    op, sep, rest = value.partition(':')
    if not sep or op not in _OPERATORS:
        return 'eq', value
    if op == 'in':
        return 'in', [part.strip() for part in rest.split(',')]
    return op, rest


def _attribute(record, key):
    if key in record and key not in ('properties', 'created_ns', 'members'):
        return record[key]
    return record['properties'].get(key)


def _compare(actual, op, wanted):
    if actual is None:
        return op == 'neq'
    if isinstance(actual, bool):
        actual = str(actual).lower()
    if op == 'in':
        return str(actual) in wanted
    if op in ('eq', 'neq'):
        return (str(actual) == wanted) == (op == 'eq')
    try:
        pair = (float(actual), float(wanted))
    except (TypeError, ValueError):
        pair = (str(actual), wanted)
    return {'gt': pair[0] > pair[1], 'gte': pair[0] >= pair[1],
            'lt': pair[0] < pair[1], 'lte': pair[0] <= pair[1]}[op]


def _visible(record, visibility, project_id):
    if visibility == 'all':
        return True
    if visibility:
        return record['visibility'] == visibility
    # Glance's default list leaves out other projects' community images.
    return (record['visibility'] != 'community'
            or (project_id is not None and record['owner'] == project_id))


def matches(record, query, who):
    """True when ``who`` may list ``record`` and it passes ``query``."""
    size = record['size']
    return (access.in_list(record, who, query.member_status)
            and _visible(record, query.visibility, who.project_id)
            and (query.os_hidden is None
                 or record['os_hidden'] == query.os_hidden)
            and (query.protected is None
                 or record['protected'] == query.protected)
            and all(tag in record['tags'] for tag in query.tags)
            and (query.size_min is None
                 or (size is not None and size >= query.size_min))
            and (query.size_max is None
                 or (size is not None and size <= query.size_max))
            and all(_compare(_attribute(record, key), op, wanted)
                    for key, (op, wanted) in query.filters))


def _sort_value(record, key):
    if key == 'created_at':
        return (True, record.get('created_ns', 0))
    value = record[key]
    # None sorts before any value, like NULL in Glance's database.
    return (value is not None, value if value is not None else 0)


def ordered(records, sort):
    """Sort by the requested keys, ties broken newest first then by id."""
    result = sorted(records, key=lambda r: r['id'], reverse=True)
    result.sort(key=lambda r: r.get('created_ns', 0), reverse=True)
    for key, direction in reversed(sort):
        result.sort(key=lambda r, k=key: _sort_value(r, k),
                    reverse=(direction == 'desc'))
    return result


def page(records, query, who, marker_record=None):
    """(images on this page, next marker or None) as Glance paginates."""
    selected = [r for r in records if matches(r, query, who)]
    if marker_record is not None:
        if all(r['id'] != marker_record['id'] for r in selected):
            selected.append(marker_record)
        selected = ordered(selected, query.sort)
        position = [r['id'] for r in selected].index(marker_record['id'])
        selected = selected[position + 1:]
    else:
        selected = ordered(selected, query.sort)
    images = selected[:query.limit]
    more = images and len(images) == query.limit
    return images, (images[-1]['id'] if more else None)

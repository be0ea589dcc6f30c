"""Request plumbing shared by the volume API handlers: JSON bodies, callers, list queries."""

import ast
import json
import typing
import urllib.parse

import webob

from nova import strict_json
from nova.embedded.image import bodyio
from nova.embedded.volume import errors, schemas
from nova.embedded.volume import microversion as mv

MAX_JSON_BODY = 1024 * 1024
MAX_LIMIT = 1000          # Cinder's osapi_max_limit
# Query parameters that page or scope a list rather than filter it.
_CONTROL = ('limit', 'marker', 'offset', 'sort', 'sort_key', 'sort_dir',
            'with_count', 'all_tenants', 'project_id')
_TRUE = ('1', 't', 'true', 'on', 'y', 'yes')


class Caller(typing.NamedTuple):
    """Who is calling: the project from the URL or token, and the roles."""

    project_id: str
    user_id: str | None
    is_admin: bool
    # The auth layer's RequestContext: calls to other services (image
    # fetches) act as this caller, never as the volume service itself.
    context: object = None


class VolumeRequest(webob.Request):
    """A request with the negotiated microversion and the caller attached."""

    version = mv.MIN_VERSION
    caller = None


def json_response(body, status=200):
    resp = webob.Response(status=status, content_type='application/json',
                          charset='UTF-8')
    resp.text = json.dumps(body, ensure_ascii=False)
    return resp


def empty_response(status):
    return webob.Response(status=status, content_type=None)


def read_json(req):
    try:
        raw = bodyio.read_body(req.environ, MAX_JSON_BODY)
    except ValueError as exc:
        raise errors.RequestTooLarge(str(exc))
    except bodyio.IncompleteBody as exc:
        raise errors.BadRequest(str(exc))
    if not raw.strip():
        raise errors.BadRequest('The server could not comply with the request '
                                'since it is either malformed or otherwise '
                                'incorrect.')
    try:
        return strict_json.loads(raw)
    except strict_json.RefusedJSON as exc:
        raise errors.BadRequest(str(exc)) from None
    except ValueError:
        raise errors.BadRequest('Malformed request body') from None


def validated_body(req, schema):
    """The JSON body, or BadRequest with Cinder's schema message."""
    body = read_json(req)
    problem = schemas.first_error(schema, body)
    if problem:
        raise errors.BadRequest(problem)
    return body


def named_fields(body):
    """name/description, also accepted under their v1 display_* names."""
    fields = {}
    for key, legacy in (('name', 'display_name'),
                        ('description', 'display_description')):
        if key in body or legacy in body:
            value = body.get(key, body.get(legacy))
            # Cinder strips surrounding white space from both.
            fields[key] = value.strip() if isinstance(value, str) else value
    return fields


def parse_size(value, name='size', maximum=None):
    """A size in GiB from a body (int or digit string) as an int >= 1."""
    try:
        size = int(value)
    except (TypeError, ValueError):
        size = 0
    if size < 1 or (maximum is not None and size > maximum):
        limit = ' and at most %d' % maximum if maximum else ''
        raise errors.BadRequest(
            "Invalid input received: %s '%s' must be an integer and greater "
            "than 0%s." % (name, value, limit))
    return size


# -- lists ------------------------------------------------------------------

def _int_param(params, name, minimum=0):
    raw = params.get(name)
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError:
        value = minimum - 1
    if value < minimum:
        raise errors.BadRequest('%s param must be an integer >= %d'
                                % (name, minimum))
    return value


def _sort_spec(params, sort_keys):
    if 'sort' in params and ('sort_key' in params or 'sort_dir' in params):
        raise errors.BadRequest("The 'sort' parameter cannot be combined with "
                                "'sort_key' or 'sort_dir'.")
    if 'sort' in params:
        items = [part.strip() for part in params['sort'].split(',')
                 if part.strip()]
        spec = [tuple(item.split(':', 1)) if ':' in item else (item, 'desc')
                for item in items]
    elif 'sort_key' in params:
        spec = [(params['sort_key'], params.get('sort_dir', 'desc'))]
    else:
        spec = []
    for key, direction in spec:
        if key not in sort_keys:
            raise errors.BadRequest('Invalid input received: Invalid sort '
                                    'key %s' % key)
        if direction not in ('asc', 'desc'):
            raise errors.BadRequest('Invalid input received: Unknown sort '
                                    'direction %s, must be asc or desc'
                                    % direction)
    keys = [key for key, _ in spec]
    # Cinder breaks ties on created_at then id, newest first.
    spec += [(key, 'desc') for key in ('created_at', 'id') if key not in keys]
    return spec


def metadata_filter(raw):
    """Parse a metadata filter: Cinder takes a Python/JSON dict literal."""
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        value = None
    if not isinstance(value, dict):
        raise errors.BadRequest("Invalid input received: metadata filter "
                                "must be a dict like {'key': 'value'}")
    return {str(k): str(v) for k, v in value.items()}


class ListQuery:
    """A parsed list request: filters, sorting, marker/limit/offset paging.

    ``filters`` maps each filter the resource knows to a predicate
    ``(record, raw_value) -> bool``; ``sort_keys`` lists sortable fields.
    """

    def __init__(self, req, filters, sort_keys):
        params = {key: value for key, value in req.GET.items()}
        self.limit = _int_param(params, 'limit')
        self.offset = _int_param(params, 'offset') or 0
        self.marker = params.get('marker')
        self.sort = _sort_spec(params, sort_keys)
        self.with_count = (req.version >= mv.SUPPORT_COUNT_INFO and
                           params.get('with_count', '').lower() in _TRUE)
        self.all_projects = (req.caller.is_admin and
                             params.get('all_tenants', '').lower() in _TRUE)
        self.project_id = params.get('project_id') if self.all_projects \
            else None
        unknown = sorted(key for key in params
                         if key not in _CONTROL and key not in filters)
        if unknown and req.version >= mv.RESOURCE_FILTER:
            raise errors.BadRequest('Invalid filters %s are found in query '
                                    'options.' % ','.join(unknown))
        self.filters = [(filters[key], value) for key, value in params.items()
                        if key in filters]

    def matches(self, record, caller):
        if self.all_projects:
            if self.project_id and record['project_id'] != self.project_id:
                return False
        elif record['project_id'] != caller.project_id:
            return False
        return all(predicate(record, value)
                   for predicate, value in self.filters)


def _sort_value(record, key):
    # created_ns orders records created within the same microsecond.
    value = record.get('created_ns') if key == 'created_at' else record.get(key)
    return (value is not None, value)


def paginate(req, records, query):
    """(page, next link or None, total count or None) of ``records``."""
    selected = [r for r in records if query.matches(r, req.caller)]
    for key, direction in reversed(query.sort):
        selected.sort(key=lambda r, k=key: _sort_value(r, k),
                      reverse=direction == 'desc')
    start = 0
    if query.marker is not None:
        ids = [r['id'] for r in selected]
        if query.marker not in ids:
            raise errors.NotFound('Marker %s could not be found.'
                                  % query.marker)
        start = ids.index(query.marker) + 1
    start += query.offset
    limit = min(query.limit if query.limit is not None else MAX_LIMIT,
                MAX_LIMIT)
    page = selected[start:start + limit]
    next_href = None
    if page and start + limit < len(selected):
        params = [(k, v) for k, v in req.GET.items()
                  if k not in ('marker', 'limit', 'offset')]
        params += [('limit', limit), ('marker', page[-1]['id'])]
        next_href = req.path_url + '?' + urllib.parse.urlencode(params)
    count = len(selected) if query.with_count else None
    return page, next_href, count

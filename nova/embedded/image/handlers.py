"""Request handlers of the embedded image API, one function per route and method."""

import json

import webob
import webob.exc

from nova import strict_json
from nova.embedded.image import access, bodyio, listing, patch, schemas, store, views

MAX_JSON_BODY = 1024 * 1024
_CREATE_READ_ONLY = ('created_at', 'updated_at', 'status', 'checksum',
                     'os_hash_algo', 'os_hash_value', 'size', 'virtual_size')


def json_response(body, status=200):
    resp = webob.Response(status=status, content_type='application/json',
                          charset='UTF-8')
    resp.text = json.dumps(body, ensure_ascii=False)
    return resp


def read_json(req):
    try:
        raw = bodyio.read_body(req.environ, MAX_JSON_BODY)
    except ValueError as exc:
        raise webob.exc.HTTPRequestEntityTooLarge(explanation=str(exc))
    except bodyio.IncompleteBody as exc:
        raise webob.exc.HTTPBadRequest(explanation=str(exc))
    if not raw.strip():
        raise webob.exc.HTTPBadRequest(explanation='Body expected in request.')
    try:
        return strict_json.loads(raw)
    except strict_json.RefusedJSON as exc:
        raise webob.exc.HTTPBadRequest(explanation=str(exc)) from None
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            explanation='Malformed JSON in request body.') from None


# -- versions and schemas ---------------------------------------------------

def list_versions(api, req):
    """GET / and GET /v2: 300 Multiple Choices, as Glance answers."""
    return json_response(views.versions(req.application_url), status=300)


def list_versions_explicit(api, req):
    """GET /versions: the same document with 200."""
    return json_response(views.versions(req.application_url))


def show_schema(api, req, name):
    access.caller(req)
    doc = schemas.schema_document(name)
    if doc is None:
        raise webob.exc.HTTPNotFound()
    return json_response(doc)


# -- images -----------------------------------------------------------------

def _check_create_body(body):
    if isinstance(body, dict):
        for key in schemas.DISALLOWED:
            if key in body:
                raise webob.exc.HTTPForbidden(
                    explanation="Attribute '%s' is read-only." % key)
    error = schemas.validation_error(body)
    if error:
        raise webob.exc.HTTPBadRequest(explanation=error)
    for key in _CREATE_READ_ONLY:
        if key in body:
            raise webob.exc.HTTPForbidden(
                explanation="Attribute '%s' is read-only." % key)


def _check_custom_property(key):
    if len(key) > 255:
        raise webob.exc.HTTPBadRequest(
            explanation='Custom property should not be greater than 255 '
                        'characters.')
    if schemas.is_reserved(key) or key in schemas.RESERVED_EXTRA:
        raise webob.exc.HTTPForbidden(
            explanation="Attribute '%s' is reserved." % key)


def _record_from_body(body, owner):
    record = store.new_record(body.get('id'), owner=owner)
    for key, value in body.items():
        if key == 'id':
            continue
        if key in schemas.MUTABLE_BASE:
            if key in ('min_ram', 'min_disk') and value < 0:
                raise webob.exc.HTTPBadRequest(
                    explanation="Invalid value '%s' for parameter '%s': "
                                "Cannot be a negative value." % (value, key))
            record[key] = list(dict.fromkeys(value)) if key == 'tags' \
                else value
        else:
            _check_custom_property(key)
            record['properties'][key] = value
    return record


def create_image(api, req):
    who = access.caller(req)
    body = read_json(req)
    _check_create_body(body)
    owner = body['owner'] if 'owner' in body else who.project_id
    access.check_create(who, owner)
    access.check_visibility(who, body.get('visibility'), owner)
    record = api.store.create(_record_from_body(body, owner))
    resp = json_response(views.image(record), status=201)
    resp.location = views.image_href(record['id'])
    return resp


def list_images(api, req):
    who = access.caller(req)
    if not who.is_reader:
        raise access.forbidden('get_images')
    query = listing.Query(req.GET.items())
    marker_record = None
    if query.marker is not None:
        try:
            marker_record = api.store.get(query.marker, _seen_by(who))
        except store.NotFound:
            raise webob.exc.HTTPBadRequest(
                explanation='Invalid marker. Image %s could not be found.'
                            % query.marker) from None
    images, next_marker = listing.page(api.store.list(), query, who,
                                       marker_record)
    return json_response(views.image_list(images, req.GET.items(), next_marker))


def _seen_by(who):
    """A store check: images the caller may not see do not exist (404)."""
    def check(record):
        if not access.can_see(record, who):
            raise store.NotFound('No image found with ID %s' % record['id'])
    return check


def _owned_by(who, action):
    """A store check: 404 if unseen, 403 if seen but not the caller's."""
    seen = _seen_by(who)

    def check(record):
        seen(record)
        access.check_owner(record, who, action)
    return check


def show_image(api, req, image_id):
    who = access.caller(req)
    return json_response(views.image(api.store.get(image_id, _seen_by(who))))


def show_image_tasks(api, req, image_id):
    """GET /v2/images/{id}/tasks (Glance API 2.12): this store runs no import tasks."""
    api.store.get(image_id, _seen_by(access.caller(req)))
    return json_response({'tasks': []})


def _check_changes(record, who, changes):
    """Glance's per-change checks: owner is admin-only, visibility has its
    own policy, and everything needs modify_image."""
    _seen_by(who)(record)
    for change in changes:
        if change.name == 'owner' and not who.is_admin and (
                change.op == 'replace'
                or (change.op == 'add' and change.value != record['owner'])):
            # Glance refuses any 'replace'; an 'add' repeating the current
            # owner (a whole image sent back) changes nothing and passes.
            raise webob.exc.HTTPForbidden(
                explanation="Owner can't be updated by non admin.")
        if change.op != 'remove' and change.name == 'visibility':
            access.check_visibility(who, change.value, record['owner'])
        access.check_owner(record, who, 'modify_image')


def update_image(api, req, image_id):
    who = access.caller(req)
    draft = patch.check_media_type(req.content_type)
    changes = patch.parse(read_json(req), draft)

    def mutate(record):
        _check_changes(record, who, changes)
        patch.apply(record, changes)
    record = api.store.update(image_id, mutate)
    return json_response(views.image(record))


def delete_image(api, req, image_id):
    who = access.caller(req)
    api.store.delete(image_id, _owned_by(who, 'delete_image'))
    return webob.Response(status=204)


# -- image data -------------------------------------------------------------

def _announced_size(req):
    """Sizes the client promised; the upload must match them exactly."""
    try:
        bodyio.content_length(req.environ)
        hint = req.headers.get('X-OpenStack-Image-Size')
        return int(hint) if hint not in (None, '') else None
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            explanation='Invalid Content-Length or X-OpenStack-Image-Size.'
        ) from None


def upload_data(api, req, image_id):
    try:
        who = access.caller(req)
        if req.content_type != 'application/octet-stream':
            raise webob.exc.HTTPUnsupportedMediaType(
                explanation='Content type %s not supported; use '
                            'application/octet-stream.' % req.content_type)
        expected = _announced_size(req)
        record = api.store.begin_upload(image_id,
                                        _owned_by(who, 'upload_image'))
    except (webob.exc.HTTPException, store.StoreError):
        bodyio.drain(req.environ)
        raise
    try:
        result = api.store.receive(record, bodyio.iter_body(req.environ),
                                   expected)
    except bodyio.IncompleteBody as exc:
        api.store.abort_upload(image_id)
        raise webob.exc.HTTPBadRequest(
            explanation='Failed to upload image data: %s' % exc) from None
    except BaseException:
        api.store.abort_upload(image_id)
        raise
    api.store.finish_upload(image_id, result)
    return webob.Response(status=204)


def _file_chunks(fp, chunk_size=bodyio.CHUNK_SIZE):
    with fp:
        while True:
            data = fp.read(chunk_size)
            if not data:
                return
            yield data


def download_data(api, req, image_id):
    who = access.caller(req)
    seen = _seen_by(who)

    def check(record):
        seen(record)
        if not access.can_download(record, who):
            raise access.forbidden('download_image')
    record, fp = api.store.open_data(image_id, check)
    if fp is None:
        return webob.Response(status=204)
    resp = webob.Response(content_type='application/octet-stream',
                          charset=None)
    resp.app_iter = _file_chunks(fp)
    resp.content_length = record['size']
    if record['checksum']:
        resp.headers['Content-MD5'] = record['checksum']
    return resp

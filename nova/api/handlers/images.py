"""Handlers of the image proxy /images and its metadata (served up to microversion 2.35)."""

from oslo_utils import timeutils

from nova import exception
from nova.api import validation, wsgi
from nova.api.schemas import images as schemas
from nova.api.views import common
from nova.api.views import images as views


def _get(req, image_id):
    try:
        return req.app.compute_api.proxy.proxy_image_get(req.context, image_id)
    except exception.ImageNotFound:
        raise wsgi.fault(404, 'Image not found.')


def _list(req, params):
    filters = {k: v for k, v in params.items() if k not in ('limit', 'marker')}
    if 'changes-since' in filters:
        filters['changes-since'] = timeutils.normalize_time(
            timeutils.parse_isotime(filters['changes-since']))
    max_limit = req.app.conf.api.max_limit
    limit = min(int(params.get('limit') or max_limit), max_limit)
    images = req.app.compute_api.proxy.proxy_image_list(req.context, filters, limit=limit,
                                                        marker=params.get('marker'))
    return images, limit


def _respond(req, images, limit, build, collection):
    api = req.app.compute_api.proxy
    body = {'images': [build(req, i, api.proxy_image_url(req.context, i['id']))
                       for i in images]}
    next_link = common.next_link(req, collection, images, limit)
    if next_link:
        body['images_links'] = next_link
    return wsgi.json_response(body)


@validation.query_schema(schemas.list_query)
def index(req, params):
    images, limit = _list(req, params)
    return _respond(req, images, limit, views.basic, 'images')


@validation.query_schema(schemas.list_query)
def detail(req, params):
    images, limit = _list(req, params)
    return _respond(req, images, limit, views.detail, 'images/detail')


def show(req, image_id):
    image = _get(req, image_id)
    url = req.app.compute_api.proxy.proxy_image_url(req.context, image_id)
    return wsgi.json_response({'image': views.detail(req, image, url)})


def delete(req, image_id):
    try:
        req.app.compute_api.proxy.proxy_image_delete(req.context, image_id)
    except exception.ImageNotFound:
        raise wsgi.fault(404, 'Image not found.')
    return wsgi.empty_response(204)


def metadata_index(req, image_id):
    return wsgi.json_response({'metadata': _get(req, image_id)['properties']})


@validation.schema(schemas.metadata)
def metadata_create(req, image_id, body):
    _get(req, image_id)
    metadata = req.app.compute_api.proxy.proxy_image_set_metadata(req.context, image_id,
                                                                  body['metadata'])
    return wsgi.json_response({'metadata': metadata})


@validation.schema(schemas.metadata)
def metadata_update_all(req, image_id, body):
    _get(req, image_id)
    req.app.compute_api.proxy.proxy_image_set_metadata(req.context, image_id, body['metadata'],
                                                       replace=True)
    return wsgi.json_response({'metadata': body['metadata']})


def metadata_show(req, image_id, key):
    props = _get(req, image_id)['properties']
    if key not in props:
        raise wsgi.fault(404, 'Invalid metadata key')
    return wsgi.json_response({'meta': {key: props[key]}})


@validation.schema(schemas.meta_item)
def metadata_update(req, image_id, key, body):
    if key not in body['meta']:
        raise wsgi.fault(400, 'Request body and URI mismatch')
    _get(req, image_id)
    req.app.compute_api.proxy.proxy_image_set_metadata(req.context, image_id, body['meta'])
    return wsgi.json_response({'meta': body['meta']})


def metadata_delete(req, image_id, key):
    _get(req, image_id)
    req.app.compute_api.proxy.proxy_image_delete_metadata(req.context, image_id, key)
    return wsgi.empty_response(204)

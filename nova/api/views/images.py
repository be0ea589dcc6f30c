"""Image proxy response bodies (microversions up to 2.35)."""

import datetime

from oslo_utils import strutils, timeutils

from nova.api.views import common

_STATUS = {'active': 'ACTIVE', 'queued': 'SAVING', 'saving': 'SAVING',
           'deleted': 'DELETED', 'pending_delete': 'DELETED', 'killed': 'ERROR'}
_PROGRESS = {'queued': 25, 'saving': 50, 'active': 100}


def _date(value):
    if not value:
        return None
    if not isinstance(value, datetime.datetime):
        value = timeutils.parse_isotime(value)
    return timeutils.normalize_time(value).strftime('%Y-%m-%dT%H:%M:%SZ')


def links(req, image_id, glance_url):
    result = common.links(req, 'images', image_id)
    if glance_url:
        result.append({'rel': 'alternate', 'type': 'application/vnd.openstack.image',
                       'href': glance_url})
    return result


def basic(req, image, glance_url):
    return {'id': image['id'], 'name': image.get('name'),
            'links': links(req, image['id'], glance_url)}


def detail(req, image, glance_url):
    props = image['properties']
    body = basic(req, image, glance_url)
    body.update({
        'minRam': int(image.get('min_ram') or 0), 'minDisk': int(image.get('min_disk') or 0),
        'metadata': props, 'created': _date(image.get('created_at')),
        'updated': _date(image.get('updated_at') or image.get('created_at')),
        'status': _STATUS.get(image.get('status'), 'UNKNOWN'),
        'progress': _PROGRESS.get(image.get('status'), 0),
        'OS-EXT-IMG-SIZE:size': image.get('size'),
    })
    if props.get('instance_uuid'):
        body['server'] = {'id': props['instance_uuid'],
                          'links': common.links(req, 'servers', props['instance_uuid'])}
    if props.get('auto_disk_config') is not None:
        auto = strutils.bool_from_string(props['auto_disk_config'])
        body['OS-DCF:diskConfig'] = 'AUTO' if auto else 'MANUAL'
    return body

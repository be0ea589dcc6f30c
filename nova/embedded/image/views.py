"""Response bodies in Glance v2's wire format: images, image lists, versions."""

import urllib.parse

# What the embedded service implements: os_hidden and multihash (2.7) but
# no interoperable import, multiple stores or cache API, so nothing newer.
VERSIONS = (('2.7', 'CURRENT'), ('2.6', 'SUPPORTED'), ('2.5', 'SUPPORTED'),
            ('2.4', 'SUPPORTED'), ('2.3', 'SUPPORTED'), ('2.2', 'SUPPORTED'),
            ('2.1', 'SUPPORTED'), ('2.0', 'SUPPORTED'))

_BASE_KEYS = ('name', 'disk_format', 'container_format', 'visibility', 'size',
              'virtual_size', 'status', 'checksum', 'protected', 'min_ram',
              'min_disk', 'owner', 'os_hidden', 'os_hash_algo',
              'os_hash_value', 'id', 'created_at', 'updated_at')


def image_href(image_id, sub=''):
    href = '/v2/images/%s' % image_id
    return '%s/%s' % (href, sub) if sub else href


def image(record):
    """A stored record as Glance shows it: custom properties top level."""
    view = dict(record['properties'])
    for key in _BASE_KEYS:
        view[key] = record[key]
    view['tags'] = list(record['tags'])
    view['self'] = image_href(record['id'])
    view['file'] = image_href(record['id'], 'file')
    view['schema'] = '/v2/schemas/image'
    return view


def image_list(records, query_items, next_marker=None):
    """The GET /v2/images body; links keep the caller's query parameters."""
    params = [(k, v) for k, v in query_items if k != 'marker']
    body = {
        'images': [image(r) for r in records],
        'first': '/v2/images',
        'schema': '/v2/schemas/images',
    }
    if params:
        body['first'] += '?' + urllib.parse.urlencode(params)
    if next_marker is not None:
        params.append(('marker', next_marker))
        body['next'] = '/v2/images?' + urllib.parse.urlencode(params)
    return body


def versions(application_url):
    """The version document served at / and /versions."""
    href = application_url.rstrip('/') + '/v2/'
    return {'versions': [
        {'id': 'v' + number, 'status': status,
         'links': [{'rel': 'self', 'href': href}]}
        for number, status in VERSIONS]}


def member(image_id, member_id, entry):
    """One image member as Glance shows it."""
    return {'member_id': member_id, 'image_id': image_id,
            'status': entry['status'], 'created_at': entry['created_at'],
            'updated_at': entry['updated_at'],
            'schema': '/v2/schemas/member'}


def member_list(image_id, members):
    """The GET /v2/images/{id}/members body, oldest member first."""
    ordered = sorted(members.items(),
                     key=lambda item: (item[1]['created_at'], item[0]))
    return {'members': [member(image_id, member_id, entry)
                        for member_id, entry in ordered],
            'schema': '/v2/schemas/members'}

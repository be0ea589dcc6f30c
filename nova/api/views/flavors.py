"""Flavor response bodies per microversion."""

from nova.api import microversion as mv
from nova.api.views import common


def basic(req, flavor):
    body = {'id': flavor['flavorid'], 'name': flavor['name'],
            'links': common.links(req, 'flavors', flavor['flavorid'])}
    if req.is_at_least(mv.FLAVOR_DESCRIPTION):
        body['description'] = flavor.get('description')
    return body


def detail(req, flavor, show_extra_specs):
    body = basic(req, flavor)
    # Before 2.75 a flavor without swap shows "" as upstream always did.
    swap = flavor['swap'] or (0 if req.is_at_least(mv.FULL_UPDATE_BODY) else '')
    body.update({
        'ram': flavor['memory_mb'], 'disk': flavor['root_gb'], 'vcpus': flavor['vcpus'],
        'swap': swap, 'rxtx_factor': flavor['rxtx_factor'],
        'OS-FLV-EXT-DATA:ephemeral': flavor['ephemeral_gb'],
        'OS-FLV-DISABLED:disabled': flavor['disabled'],
        'os-flavor-access:is_public': flavor['is_public'],
    })
    if req.is_at_least(mv.FLAVOR_EXTRA_SPECS) and show_extra_specs:
        body['extra_specs'] = flavor.get('extra_specs') or {}
    return body


def index(req, flavors, limit):
    body = {'flavors': [basic(req, f) for f in flavors]}
    # /flavors/detail builds on this body too; its next page is the detail one.
    collection = 'flavors/detail' if req.path_info.rstrip('/').endswith('/detail') \
        else 'flavors'
    links = common.next_link(req, collection, flavors, limit, id_key='flavorid')
    if links:
        body['flavors_links'] = links
    return body

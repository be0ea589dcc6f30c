"""os-aggregates, os-availability-zone and zones on server create, through the all-in-one."""

import pytest

from nova.tests.functional.api import tempest_schemas as ts
from nova.tests.functional.api.conftest import server_body

ADMIN = 'admin:admin'


def req(aio, method, path, body=None, version='2.1', token=ADMIN):
    return aio.request(method, path, body, version=version, token=token)


@pytest.mark.parametrize('version', ['2.1', '2.41'])
def test_aggregate_lifecycle(aio, version):
    name = 'agg-' + version
    status, _h, body = req(aio, 'POST', '/os-aggregates', {'aggregate': {'name': name}},
                           version)
    ts.validate('aggregates', 'create_aggregate', version, status, body)
    agg_id = body['aggregate']['id']
    assert ('uuid' in body['aggregate']) == (version == '2.41')
    path = '/os-aggregates/%d' % agg_id
    status, _h, body = req(aio, 'PUT', path, {'aggregate': {'name': name + 'x'}}, version)
    ts.validate('aggregates', 'update_aggregate', version, status, body)
    status, _h, body = req(aio, 'POST', path + '/action', {'add_host': {'host': 'testhost'}},
                           version)
    ts.validate('aggregates', 'aggregate_add_remove_host', version, status, body)
    assert body['aggregate']['hosts'] == ['testhost']
    status, _h, body = req(aio, 'POST', path + '/action',
                           {'add_host': {'host': 'testhost'}}, version)
    assert status == 409
    # A non-empty aggregate cannot be deleted.
    assert req(aio, 'DELETE', path, version=version)[0] == 400
    status, _h, body = req(aio, 'POST', path + '/action', {'set_metadata': {'metadata': {
        'k': 'v', 'gone': None}}}, version)
    ts.validate('aggregates', 'aggregate_set_metadata', version, status, body)
    assert body['aggregate']['metadata'] == {'k': 'v'}
    status, _h, body = req(aio, 'GET', '/os-aggregates', version=version)
    ts.validate('aggregates', 'list_aggregates', version, status, body)
    status, _h, body = req(aio, 'GET', path, version=version)
    ts.validate('aggregates', 'get_aggregate', version, status, body)
    status, _h, body = req(aio, 'POST', path + '/action',
                           {'remove_host': {'host': 'testhost'}}, version)
    ts.validate('aggregates', 'aggregate_add_remove_host', version, status, body)
    assert req(aio, 'POST', path + '/action', {'remove_host': {'host': 'testhost'}},
               version)[0] == 404
    status, _h, body = req(aio, 'DELETE', path, version=version)
    ts.validate('aggregates', 'delete_aggregate', version, status, body)
    assert req(aio, 'GET', path, version=version)[0] == 404


@pytest.mark.parametrize('method,path,body,token,code', [
    ('POST', '/os-aggregates', {'aggregate': {'name': 'u'}}, 'demo:demo', 403),
    ('GET', '/os-aggregates', None, 'demo:demo', 403),
    ('POST', '/os-aggregates', {'aggregate': {'name': ''}}, ADMIN, 400),
    ('POST', '/os-aggregates', {'aggregate': {'name': 'a' * 256}}, ADMIN, 400),
    ('POST', '/os-aggregates', {'aggregate': {'name': 'n', 'bogus': 1}}, ADMIN, 400),
    ('GET', '/os-aggregates/-1', None, ADMIN, 404),
    ('DELETE', '/os-aggregates/-1', None, ADMIN, 404),
    ('GET', '/os-aggregates/abc', None, ADMIN, 400),
    ('POST', '/os-aggregates/-1/action', {'add_host': {'host': 'testhost'}}, ADMIN, 404),
])
def test_aggregate_refusals(aio, method, path, body, token, code):
    status, _h, resp = req(aio, method, path, body, token=token)
    assert status == code, resp


def test_duplicate_name_and_unknown_host(aio):
    status, _h, body = req(aio, 'POST', '/os-aggregates', {'aggregate': {'name': 'dup'}})
    agg_id = body['aggregate']['id']
    status, _h, body = req(aio, 'POST', '/os-aggregates', {'aggregate': {'name': 'dup'}})
    assert status == 409 and body['conflictingRequest']['message'] == \
        'Aggregate dup already exists.'
    status, _h, body = req(aio, 'POST', '/os-aggregates/%d/action' % agg_id,
                           {'add_host': {'host': 'nohost'}})
    assert status == 404 and body['itemNotFound']['message'] == \
        'Compute host nohost could not be found.'
    assert req(aio, 'DELETE', '/os-aggregates/%d' % agg_id)[0] == 200


def test_zones_list_detail_and_scheduling(aio, image, nano):
    status, _h, body = req(aio, 'GET', '/os-availability-zone', token='demo:demo')
    ts.validate('availability_zone', 'list_availability_zone_list', '2.1', status, body)
    assert [z['zoneName'] for z in body['availabilityZoneInfo']] == ['nova']
    assert req(aio, 'GET', '/os-availability-zone/detail', token='demo:demo')[0] == 403
    # Put the only host in zone 'az1' through an aggregate.
    status, _h, body = req(aio, 'POST', '/os-aggregates', {'aggregate': {
        'name': 'zoned', 'availability_zone': 'az1'}})
    assert body['aggregate']['availability_zone'] == 'az1'
    path = '/os-aggregates/%d' % body['aggregate']['id']
    req(aio, 'POST', path + '/action', {'add_host': {'host': 'testhost'}})
    status, _h, body = req(aio, 'GET', '/os-availability-zone/detail')
    ts.validate('availability_zone', 'list_availability_zone_list_detail', '2.1', status, body)
    zones = {z['zoneName']: z for z in body['availabilityZoneInfo']}
    assert set(zones) == {'az1', 'internal'}
    assert zones['az1']['hosts']['testhost']['nova-compute']['active'] is True
    # Unknown zones are refused before anything is written; 'nova' has no host now.
    for zone in ('nowhere', 'nova'):
        status, _h, body = aio.request('POST', '/servers', server_body(
            image, name='z', availability_zone=zone), version='2.37')
        assert status == 400 and body['badRequest']['message'] == \
            'The requested availability zone is not available'
    status, _h, body = aio.request('POST', '/servers', server_body(
        image, name='inaz', availability_zone='az1'), version='2.37')
    assert status == 202, body
    server = aio.wait_for_status(body['server']['id'], ['ACTIVE'])
    assert server['OS-EXT-AZ:availability_zone'] == 'az1'
    # Without a zone the server lands anywhere and shows its host's zone.
    status, _h, body = aio.request('POST', '/servers', server_body(image, name='anyaz'),
                                   version='2.37')
    other = aio.wait_for_status(body['server']['id'], ['ACTIVE'])
    assert other['OS-EXT-AZ:availability_zone'] == 'az1'
    # A second zone for the same host is a conflict.
    status, _h, body = req(aio, 'POST', '/os-aggregates', {'aggregate': {
        'name': 'zoned2', 'availability_zone': 'az2'}})
    status, _h, body = req(aio, 'POST', '/os-aggregates/%d/action' % body['aggregate']['id'],
                           {'add_host': {'host': 'testhost'}})
    assert status == 409, body
    for sid in (server['id'], other['id']):
        aio.request('DELETE', '/servers/' + sid)
        aio.wait_for_status(sid, ['DELETED'])
    req(aio, 'POST', path + '/action', {'remove_host': {'host': 'testhost'}})
    status, _h, body = req(aio, 'GET', '/os-availability-zone', token='demo:demo')
    assert [z['zoneName'] for z in body['availabilityZoneInfo']] == ['nova']


def _message(body):
    return next(iter(body.values()))['message']


def test_zone_rules_and_messages_as_upstream(aio, image, nano):
    # Any zone name the schema accepts, the services' 'internal' one included.
    status, _h, body = req(aio, 'POST', '/os-aggregates', {'aggregate': {
        'name': 'inner', 'availability_zone': 'internal'}})
    assert status == 200 and body['aggregate']['availability_zone'] == 'internal', body
    inner = body['aggregate']['id']
    # An empty zone is refused by update and by set_metadata, each naming its action
    # and the real aggregate.
    status, _h, body = req(aio, 'PUT', '/os-aggregates/%d' % inner,
                           {'aggregate': {'availability_zone': None}})
    assert status == 400 and _message(body) == (
        'Cannot update aggregate %d. Reason: Aggregate inner does not support empty '
        'named availability zone.' % inner)
    status, _h, body = req(aio, 'POST', '/os-aggregates/%d/action' % inner,
                           {'set_metadata': {'metadata': {'availability_zone': None}}})
    assert status == 400 and _message(body) == (
        'Cannot update metadata of aggregate %d. Reason: Aggregate inner does not support '
        'empty named availability zone.' % inner)
    # A second aggregate of the same host cannot give it another zone.
    status, _h, body = req(aio, 'POST', '/os-aggregates', {'aggregate': {'name': 'outer'}})
    outer = body['aggregate']['id']
    for agg in (inner, outer):
        assert req(aio, 'POST', '/os-aggregates/%d/action' % agg,
                   {'add_host': {'host': 'testhost'}})[0] == 200
    status, _h, body = req(aio, 'PUT', '/os-aggregates/%d' % outer,
                           {'aggregate': {'name': '  outer2 ', 'availability_zone': 'az9'}})
    assert status == 400 and _message(body) == (
        "Cannot update aggregate %d. Reason: One or more hosts already in availability "
        "zone(s) ['internal']." % outer)
    # Nothing was written by the refused update (not even the name).
    assert req(aio, 'GET', '/os-aggregates/%d' % outer)[2]['aggregate']['name'] == 'outer'
    status, _h, body = req(aio, 'PUT', '/os-aggregates/%d' % outer,
                           {'aggregate': {'name': '  outer2 '}})
    assert status == 200 and body['aggregate']['name'] == 'outer2'
    # A zone with servers in it is not renamed; the same name is accepted.
    status, _h, body = aio.request('POST', '/servers', server_body(image, name='inzone'),
                                   version='2.37')
    sid = body['server']['id']
    aio.wait_for_status(sid, ['ACTIVE'])
    status, _h, body = req(aio, 'PUT', '/os-aggregates/%d' % inner,
                           {'aggregate': {'availability_zone': 'elsewhere'}})
    assert status == 400 and _message(body) == (
        'Cannot update aggregate %d. Reason: One or more hosts contain instances in this '
        'zone.' % inner)
    assert req(aio, 'PUT', '/os-aggregates/%d' % inner,
               {'aggregate': {'availability_zone': 'internal'}})[0] == 200
    status, _h, body = req(aio, 'DELETE', '/os-aggregates/%d' % inner)
    assert status == 400 and _message(body) == (
        'Cannot remove host from aggregate %d. Reason: Host aggregate is not empty.' % inner)
    aio.request('DELETE', '/servers/' + sid)
    aio.wait_for_status(sid, ['DELETED'])
    assert req(aio, 'PUT', '/os-aggregates/%d' % inner,
               {'aggregate': {'availability_zone': 'elsewhere'}})[0] == 200
    for agg in (inner, outer):
        req(aio, 'POST', '/os-aggregates/%d/action' % agg,
            {'remove_host': {'host': 'testhost'}})
        assert req(aio, 'DELETE', '/os-aggregates/%d' % agg)[0] == 200

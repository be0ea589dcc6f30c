"""The embedded image endpoint's multi-project rules: owner, visibility, members, as Glance."""

import json
import uuid

import pytest
import requests

from nova.tests.unit.embedded import image_server

A, B, C, ADMIN = 'ua:pa', 'ub:pb', 'uc:pc', 'admin:admin'
PATCH_21 = 'application/openstack-images-v2.1-json-patch'


@pytest.fixture
def server(tmp_path):
    # No default identity: every request here says who it is.
    srv = image_server.ImageServer(str(tmp_path / 'images'),
                                   default_token=None)
    yield srv
    srv.stop()


def call(server, method, path, token, body=None, **kwargs):
    # JSON errors, so messages are not HTML-escaped.
    headers = {'Accept': 'application/json'}
    if token:
        headers['X-Auth-Token'] = token
    headers.update(kwargs.pop('headers', {}))
    return requests.request(method, server.url + path, json=body,
                            headers=headers, **kwargs)


def patch(server, image_id, token, ops):
    return call(server, 'PATCH', '/v2/images/' + image_id, token,
                data=json.dumps(ops), headers={'Content-Type': PATCH_21})


def names(server, token, query=''):
    resp = call(server, 'GET', '/v2/images' + query, token)
    assert resp.status_code == 200, resp.text
    return sorted(i['name'] for i in resp.json()['images'])


def add_member(server, image_id, member, token=A):
    return call(server, 'POST', '/v2/images/%s/members' % image_id, token,
                {'member': member})


def set_status(server, image_id, member, status, token):
    return call(server, 'PUT', '/v2/images/%s/members/%s'
                % (image_id, member), token, {'status': status})


# -- identity and owner -----------------------------------------------------

def test_no_identity_is_401_but_versions_are_public(server):
    assert call(server, 'GET', '/v2/images', None).status_code == 401
    assert call(server, 'POST', '/v2/images', None,
                {'name': 'x'}).status_code == 401
    assert call(server, 'GET', '/v2/schemas/image', None).status_code == 401
    assert call(server, 'GET', '/', None).status_code == 300
    assert call(server, 'GET', '/versions', None).status_code == 200


def test_identity_headers_are_ignored(server):
    resp = call(server, 'POST', '/v2/images', A, {'name': 'mine'},
                headers={'X-Project-Id': 'pb', 'X-Tenant-Id': 'pb',
                         'X-Roles': 'admin'})
    assert resp.json()['owner'] == 'pa'
    assert call(server, 'GET', '/v2/images/' + resp.json()['id'], B,
                headers={'X-Project-Id': 'pa'}).status_code == 404


def test_owner_is_the_creating_project(server):
    image = server.create(token=A, name='a')
    assert image['owner'] == 'pa'
    assert image['visibility'] == 'shared'


def test_only_admin_creates_for_another_owner(server):
    resp = call(server, 'POST', '/v2/images', A, {'owner': 'pb'})
    assert resp.status_code == 403
    assert "not permitted to create images owned by 'pb'" in resp.text
    assert names(server, ADMIN, '?visibility=all') == []
    image = server.create(token=ADMIN, name='gift', owner='pb')
    assert image['owner'] == 'pb'
    assert names(server, B) == ['gift']


@pytest.mark.parametrize('op', ['replace', 'add'])
def test_non_admin_cannot_change_owner(server, op):
    image = server.create(token=A, name='a')
    resp = patch(server, image['id'], A,
                 [{'op': op, 'path': '/owner', 'value': 'pb'}])
    assert resp.status_code == 403
    assert "Owner can't be updated by non admin." in resp.text
    assert server.show(image['id'], token=A)['owner'] == 'pa'
    resp = patch(server, image['id'], ADMIN,
                 [{'op': op, 'path': '/owner', 'value': 'pb'}])
    assert resp.status_code == 200
    assert server.show(image['id'], token=B)['owner'] == 'pb'
    assert call(server, 'GET', image['self'], A).status_code == 404


# -- visibility ---------------------------------------------------------------

def test_publicize_is_admin_only(server):
    resp = call(server, 'POST', '/v2/images', A, {'visibility': 'public'})
    assert resp.status_code == 403
    assert 'publicize_image' in resp.text
    image = server.create(token=A, name='a')
    resp = patch(server, image['id'], A, [
        {'op': 'replace', 'path': '/visibility', 'value': 'public'}])
    assert resp.status_code == 403
    assert server.show(image['id'], token=A)['visibility'] == 'shared'
    assert patch(server, image['id'], ADMIN, [
        {'op': 'replace', 'path': '/visibility', 'value': 'public'}
    ]).status_code == 200
    assert names(server, B) == ['a']


def test_owner_may_make_an_image_community(server):
    image = server.create(token=A, name='comm', visibility='community')
    assert image['visibility'] == 'community'
    other = server.create(token=A, name='other')
    assert patch(server, other['id'], A, [
        {'op': 'replace', 'path': '/visibility', 'value': 'community'}
    ]).status_code == 200


def test_who_sees_what(server):
    ids = {}
    for vis in ('private', 'shared', 'community'):
        ids[vis] = server.create(token=A, name=vis, visibility=vis)['id']
    ids['public'] = server.create(token=ADMIN, name='public',
                                  visibility='public', owner='pa')['id']
    everything = ['community', 'private', 'public', 'shared']
    assert names(server, A) == everything
    # Community images are listed only when asked for (Glance's default).
    assert names(server, B) == ['public']
    assert names(server, B, '?visibility=community') == ['community']
    assert names(server, B, '?visibility=private') == []
    assert names(server, ADMIN, '?visibility=all') == everything
    for vis, image_id in ids.items():
        status = call(server, 'GET', '/v2/images/' + image_id, B).status_code
        assert status == (200 if vis in ('public', 'community') else 404), vis
        assert call(server, 'GET', '/v2/images/' + image_id,
                    ADMIN).status_code == 200


def test_others_private_image_is_404_everywhere(server):
    image = server.create(token=A, name='secret', visibility='private')
    assert server.upload(image['id'], b'data', token=A).status_code == 204
    for method, suffix in (('GET', ''), ('DELETE', ''), ('GET', '/file')):
        resp = call(server, method, '/v2/images/%s%s' % (image['id'], suffix),
                    B)
        assert resp.status_code == 404, (method, suffix)
        assert 'No image found with ID' in resp.text
    assert patch(server, image['id'], B, [
        {'op': 'replace', 'path': '/name', 'value': 'stolen'}
    ]).status_code == 404
    assert call(server, 'GET', '/v2/images?marker=' + image['id'],
                B).status_code == 400
    assert server.show(image['id'], token=A)['name'] == 'secret'
    got = call(server, 'GET', '/v2/images/%s/file' % image['id'], A)
    assert got.content == b'data'


def test_visible_but_not_owned_is_403_for_changes(server):
    image = server.create(token=ADMIN, name='pub', visibility='public',
                          owner='pa')
    new = server.create(token=ADMIN, name='queued', visibility='public')
    for resp in (
            patch(server, image['id'], B,
                  [{'op': 'replace', 'path': '/name', 'value': 'x'}]),
            call(server, 'DELETE', image['self'], B),
            server.upload(new['id'], b'data', token=B)):
        assert resp.status_code == 403, resp.text
        assert 'You are not authorized to complete' in resp.text
    assert server.show(image['id'], token=B)['name'] == 'pub'
    assert server.show(new['id'], token=B)['status'] == 'queued'
    assert server.data_files() == []


def test_protected_image_refuses_delete_even_for_admin(server):
    image = server.create(token=A, name='keep', protected=True)
    for token in (A, ADMIN):
        resp = call(server, 'DELETE', image['self'], token)
        assert resp.status_code == 403
        assert 'is protected' in resp.text
    assert call(server, 'DELETE', image['self'], B).status_code == 404
    patch(server, image['id'], A,
          [{'op': 'replace', 'path': '/protected', 'value': False}])
    assert call(server, 'DELETE', image['self'], A).status_code == 204


def test_reader_only_role_reads_but_does_not_write(server, monkeypatch):
    image = server.create(token=A, name='a')
    server.upload(image['id'], b'data', token=A)
    original = image_server.noauth_context

    def reader_only(token):
        ctx = original(token)
        if token.startswith('reader:'):
            ctx.roles = ['reader']
        return ctx
    monkeypatch.setattr(image_server, 'noauth_context', reader_only)
    reader = 'reader:pa'
    assert call(server, 'GET', image['self'], reader).status_code == 200
    assert names(server, reader) == ['a']
    assert call(server, 'GET', image['file'], reader).status_code == 403
    assert call(server, 'POST', '/v2/images', reader, {}).status_code == 403
    assert patch(server, image['id'], reader, [
        {'op': 'replace', 'path': '/name', 'value': 'x'}]).status_code == 403
    assert call(server, 'DELETE', image['self'], reader).status_code == 403


# -- members ------------------------------------------------------------------

def test_member_flow_pending_accepted_rejected(server):
    image = server.create(token=A, name='shared')
    resp = add_member(server, image['id'], 'pb')
    assert resp.status_code == 200, resp.text
    member = resp.json()
    assert {k: member[k] for k in ('member_id', 'image_id', 'status',
                                   'schema')} == {
        'member_id': 'pb', 'image_id': image['id'], 'status': 'pending',
        'schema': '/v2/schemas/member'}
    assert member['created_at'].endswith('Z')
    # Pending: B can use the image by id but does not list it by default.
    assert call(server, 'GET', image['self'], B).status_code == 200
    assert names(server, B) == []
    assert names(server, B, '?member_status=pending') == ['shared']
    assert names(server, B, '?member_status=all') == ['shared']
    assert set_status(server, image['id'], 'pb', 'accepted',
                      B).json()['status'] == 'accepted'
    assert names(server, B) == ['shared']
    assert names(server, B, '?visibility=shared') == ['shared']
    assert set_status(server, image['id'], 'pb', 'rejected',
                      B).status_code == 200
    assert names(server, B) == []
    assert names(server, B, '?member_status=rejected') == ['shared']
    # C, not a member, sees nothing at all.
    assert call(server, 'GET', image['self'], C).status_code == 404
    assert names(server, C, '?member_status=all') == []


def test_member_list_and_show(server):
    image = server.create(token=A, name='shared')
    add_member(server, image['id'], 'pb')
    add_member(server, image['id'], 'pc')
    path = '/v2/images/%s/members' % image['id']
    body = call(server, 'GET', path, A).json()
    assert body['schema'] == '/v2/schemas/members'
    assert [m['member_id'] for m in body['members']] == ['pb', 'pc']
    # A member sees only its own membership.
    assert [m['member_id'] for m in call(server, 'GET', path, B).json()[
        'members']] == ['pb']
    assert call(server, 'GET', path + '/pb', B).json()['status'] == 'pending'
    assert call(server, 'GET', path + '/pc', B).status_code == 404
    assert call(server, 'GET', path + '/pz', A).status_code == 404
    assert call(server, 'GET', path, 'ud:pd').status_code == 404
    for name in ('member', 'members'):
        schema = call(server, 'GET', '/v2/schemas/' + name, A).json()
        assert schema['name'] == name


def test_member_rules(server):
    image = server.create(token=A, name='shared')
    path = '/v2/images/%s/members' % image['id']
    assert add_member(server, image['id'], 'pb').status_code == 200
    dup = add_member(server, image['id'], 'pb')
    assert dup.status_code == 409
    assert 'Member pb is duplicated for image' in dup.text
    # Only the owner adds and removes; only the member answers.
    assert add_member(server, image['id'], 'pc', token=B).status_code == 403
    assert set_status(server, image['id'], 'pb', 'accepted',
                      A).status_code == 403
    assert set_status(server, image['id'], 'pb', 'accepted',
                      C).status_code == 404
    bad = set_status(server, image['id'], 'pb', 'maybe', B)
    assert bad.status_code == 400
    assert 'Status must be "pending", "accepted" or "rejected"' in bad.json()[
        'message']
    assert call(server, 'DELETE', path + '/pb', B).status_code == 403
    assert call(server, 'GET', path + '/pb', A).json()['status'] == 'pending'
    assert call(server, 'DELETE', path + '/pb', A).status_code == 204
    assert call(server, 'GET', image['self'], B).status_code == 404
    assert call(server, 'DELETE', path + '/pb', A).status_code == 404


@pytest.mark.parametrize('body,message', [
    ({}, 'Member to be added not specified'),
    ({'member': ''}, "Member can't be empty"),
    ([], 'Expected a member in the form'),
])
def test_member_create_rejects_bad_bodies(server, body, message):
    image = server.create(token=A)
    resp = call(server, 'POST', '/v2/images/%s/members' % image['id'], A,
                body)
    assert resp.status_code == 400
    assert message in resp.text


@pytest.mark.parametrize('visibility', ['private', 'community'])
def test_only_shared_images_have_members(server, visibility):
    image = server.create(token=A, visibility=visibility)
    resp = add_member(server, image['id'], 'pb')
    assert resp.status_code == 403
    assert 'Not allowed to create members' in resp.text
    resp = call(server, 'GET', '/v2/images/%s/members' % image['id'], A)
    assert resp.status_code == 403
    assert 'Only shared images have members' in resp.text


def test_membership_ends_when_image_leaves_shared(server):
    image = server.create(token=A, name='s')
    add_member(server, image['id'], 'pb')
    set_status(server, image['id'], 'pb', 'accepted', B)
    patch(server, image['id'], A,
          [{'op': 'replace', 'path': '/visibility', 'value': 'private'}])
    assert call(server, 'GET', image['self'], B).status_code == 404
    assert names(server, B) == []


def test_members_do_not_touch_image_and_survive_restart(server):
    from nova.embedded.image import store
    image = server.create(token=A, name='s')
    add_member(server, image['id'], 'pb')
    set_status(server, image['id'], 'pb', 'accepted', B)
    assert server.show(image['id'], token=A)['updated_at'] == \
        image['updated_at']
    assert 'members' not in server.show(image['id'], token=A)
    record = store.ImageStore(server.data_dir).get(image['id'])
    assert record['members']['pb']['status'] == 'accepted'


def test_unknown_image_members_is_404(server):
    resp = call(server, 'GET', '/v2/images/%s/members' % uuid.uuid4(), A)
    assert resp.status_code == 404

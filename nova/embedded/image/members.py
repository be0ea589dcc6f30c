"""Image sharing: /v2/images/{id}/members with Glance's member status flow and policies."""

import webob
import webob.exc

from nova.embedded.image import access, handlers, store, views

# Glance's image_member_quota default.
MEMBER_QUOTA = 128


def _check_seen(record, who):
    # Checked again under the store's lock: the image may have changed.
    if not access.can_see(record, who):
        raise webob.exc.HTTPNotFound(
            explanation='Image %s not found.' % record['id'])


def _lookup_image(api, image_id, who):
    """The image if the caller may see it; Glance's 404 otherwise."""
    try:
        record = api.store.get(image_id)
    except store.NotFound:
        raise webob.exc.HTTPNotFound(
            explanation='Image %s not found.' % image_id) from None
    _check_seen(record, who)
    return record


def _visible_members(record, who):
    """Owner and admins see every member; a member sees only itself."""
    members = record.get('members') or {}
    if who.is_admin or (who.is_reader and who.project_id is not None
                        and record['owner'] == who.project_id):
        return members
    if not who.is_reader:
        return {}
    return {k: v for k, v in members.items() if k == who.project_id}


def _lookup_member(record, member_id, who):
    member = _visible_members(record, who).get(member_id)
    if member is None:
        raise webob.exc.HTTPNotFound(
            explanation='%s not found in the member list of the image %s.'
                        % (member_id, record['id']))
    return member


def _refuse(what, image_id):
    return webob.exc.HTTPForbidden(
        explanation='Not allowed to %s members for image %s.'
                    % (what, image_id))


def list_members(api, req, image_id):
    who = access.caller(req)
    record = _lookup_image(api, image_id, who)
    if record['visibility'] != 'shared':
        raise webob.exc.HTTPForbidden(
            explanation='Not allowed to list members for image %s: Only '
                        'shared images have members.' % image_id)
    members = _visible_members(record, who)
    return handlers.json_response(views.member_list(record['id'], members))


def show_member(api, req, image_id, member_id):
    who = access.caller(req)
    record = _lookup_image(api, image_id, who)
    # Glance turns every refusal here into 404, to leak nothing.
    if record['visibility'] != 'shared':
        raise webob.exc.HTTPNotFound(
            explanation='Only shared images have members.')
    member = _lookup_member(record, member_id, who)
    return handlers.json_response(views.member(record['id'], member_id, member))


def _member_id_from(body):
    if not isinstance(body, dict):
        raise webob.exc.HTTPBadRequest(
            explanation='Expected a member in the form: '
                        '{"member": "image_id"}')
    if 'member' not in body:
        raise webob.exc.HTTPBadRequest(
            explanation='Member to be added not specified')
    member_id = body['member']
    if not member_id:
        raise webob.exc.HTTPBadRequest(explanation="Member can't be empty")
    if not isinstance(member_id, str) or len(member_id) > 255:
        raise webob.exc.HTTPBadRequest(
            explanation='Expected a member in the form: '
                        '{"member": "image_id"}')
    return member_id


def create_member(api, req, image_id):
    who = access.caller(req)
    member_id = _member_id_from(handlers.read_json(req))
    _lookup_image(api, image_id, who)

    def add(record):
        _check_seen(record, who)
        if record['visibility'] != 'shared' or not access.owns(record, who):
            raise _refuse('create', image_id)
        members = record['members']
        if member_id in members:
            raise webob.exc.HTTPConflict(
                explanation='Member %s is duplicated for image %s'
                            % (member_id, image_id))
        if len(members) >= MEMBER_QUOTA:
            raise webob.exc.HTTPRequestEntityTooLarge(
                explanation='Image member limit exceeded for image %s: '
                            'Maximum number of members per image is %d.'
                            % (image_id, MEMBER_QUOTA))
        now = store.isotime()
        members[member_id] = {'status': 'pending', 'created_at': now,
                              'updated_at': now}
    record = api.store.update(image_id, add, touch=False)
    return handlers.json_response(views.member(
        image_id, member_id, record['members'][member_id]))


def _status_from(body):
    if not isinstance(body, dict):
        raise webob.exc.HTTPBadRequest(
            explanation='Expected a status in the form: {"status": "status"}')
    if 'status' not in body:
        raise webob.exc.HTTPBadRequest(explanation='Status not specified')
    return body['status']


def update_member(api, req, image_id, member_id):
    who = access.caller(req)
    status = _status_from(handlers.read_json(req))
    _lookup_image(api, image_id, who)

    def change(record):
        _check_seen(record, who)
        if record['visibility'] != 'shared':
            raise _refuse('update', image_id)
        member = _lookup_member(record, member_id, who)
        # modify_member: only the member itself (or an admin) answers.
        if not (who.is_admin or (who.is_member
                                 and who.project_id == member_id)):
            raise _refuse('update', image_id)
        if status not in access.MEMBER_STATUSES:
            raise webob.exc.HTTPBadRequest(
                explanation='Incorrect request: Status must be "pending", '
                            '"accepted" or "rejected".')
        member.update(status=status, updated_at=store.isotime())
    record = api.store.update(image_id, change, touch=False)
    return handlers.json_response(views.member(
        image_id, member_id, record['members'][member_id]))


def delete_member(api, req, image_id, member_id):
    who = access.caller(req)
    _lookup_image(api, image_id, who)

    def remove(record):
        _check_seen(record, who)
        if record['visibility'] != 'shared':
            raise _refuse('delete', image_id)
        _lookup_member(record, member_id, who)
        if not access.owns(record, who):
            raise _refuse('delete', image_id)
        del record['members'][member_id]
    api.store.update(image_id, remove, touch=False)
    return webob.Response(status=204)

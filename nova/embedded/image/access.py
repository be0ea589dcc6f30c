"""Who may see and change an image: Glance's default image and member policies, in code."""

import webob.exc

# Glance answers a policy refusal with this text (glance.common.exception).
_NOT_AUTHORIZED = 'You are not authorized to complete %s action.'
MEMBER_STATUSES = ('pending', 'accepted', 'rejected')


class Caller:
    """The identity of one request, from the RequestContext the auth layer set."""

    def __init__(self, context):
        self.context = context
        self.project_id = context.project_id
        self.user_id = context.user_id
        self.roles = {role.lower() for role in (context.roles or [])}
        self.is_admin = bool(context.is_admin) or 'admin' in self.roles

    @property
    def is_member(self):
        """Glance's ``role:member`` (admins pass every rule that needs it)."""
        return self.is_admin or 'member' in self.roles

    @property
    def is_reader(self):
        # Keystone's default roles imply reader from member; accept either so
        # a token listing only 'member' still reads.
        return self.is_member or 'reader' in self.roles


def caller(req):
    """The request's Caller; 401 when no auth layer vouched for anyone.

    The identity comes only from ``environ['nova.context']``, which the
    deployment's auth wrapper (Keystone token or noauth token) sets;
    identity headers sent by a client are never read here.
    """
    context = req.environ.get('nova.context')
    if context is None:
        raise webob.exc.HTTPUnauthorized(
            explanation='The request you have made requires authentication.')
    return Caller(context)


def forbidden(action):
    return webob.exc.HTTPForbidden(explanation=_NOT_AUTHORIZED % action)


def membership(record, project_id):
    """The member entry of ``project_id`` on a shared image, else None."""
    if project_id is None or record['visibility'] != 'shared':
        return None
    return (record.get('members') or {}).get(project_id)


def can_see(record, who):
    """Glance's is_image_visible plus the get_image reader rule.

    A member of a shared image sees it whatever its member status: the
    status only decides whether the image appears in the member's list.
    """
    if who.is_admin:
        return True
    if not who.is_reader:
        return False
    if record['owner'] is None or record['visibility'] in ('public',
                                                           'community'):
        return True
    if who.project_id is not None and record['owner'] == who.project_id:
        return True
    return membership(record, who.project_id) is not None


def in_list(record, who, member_status='accepted'):
    """Whether a list (before its visibility filter) may include ``record``."""
    if who.is_admin:
        return True
    if record['visibility'] in ('public', 'community'):
        return True
    if who.project_id is not None and record['owner'] == who.project_id:
        return True
    member = membership(record, who.project_id)
    return member is not None and member_status in ('all', member['status'])


def owns(record, who):
    """Glance's ADMIN_OR_PROJECT_MEMBER with the image's owner as project."""
    return who.is_admin or (who.is_member and who.project_id is not None
                            and record['owner'] == who.project_id)


def check_owner(record, who, action):
    """403 unless the caller may change the image (modify, upload, delete...)."""
    if not owns(record, who):
        raise forbidden(action)


def check_visibility(who, visibility, owner):
    """publicize_image is admin only; communitize_image needs the owner."""
    if visibility == 'public' and not who.is_admin:
        raise forbidden('publicize_image')
    if visibility == 'community' and not (
            who.is_admin or (who.is_member and owner == who.project_id)):
        raise forbidden('communitize_image')


def check_create(who, owner):
    """add_image: admin, or a project member creating in its own project."""
    if who.is_admin:
        return
    if owner != who.project_id:
        raise webob.exc.HTTPForbidden(
            explanation="You are not permitted to create images owned by "
                        "'%s'." % owner)
    if not who.is_member:
        raise forbidden('add_image')


def can_download(record, who):
    """download_image needs the member role on top of seeing the image."""
    return who.is_admin or who.is_member

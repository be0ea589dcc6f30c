"""Request plumbing shared by the network handlers: the caller, JSON bodies and responses."""

import json
import typing

import webob

from nova import strict_json
from nova.embedded.image import bodyio
from nova.embedded.network import errors

MAX_JSON_BODY = 1024 * 1024


class NetworkCaller(typing.NamedTuple):
    """Who is calling: the token's project and user, and whether they are an administrator."""

    project_id: str
    user_id: str | None
    is_admin: bool


class NeutronRequest(webob.Request):
    """A request with its caller attached by the dispatcher."""

    caller = None


def json_response(body, status=200):
    resp = webob.Response(status=status, content_type='application/json', charset='UTF-8')
    resp.text = json.dumps(body, ensure_ascii=False)
    return resp


def empty_response(status=204):
    return webob.Response(status=status, content_type=None)


def read_json(req):
    """The decoded body; Neutron's 400s for a missing or undecodable one."""
    try:
        raw = bodyio.read_body(req.environ, MAX_JSON_BODY)
    except ValueError as exc:
        raise errors.NeutronRequestTooLarge(str(exc)) from None
    except bodyio.IncompleteBody as exc:
        raise errors.NeutronBadRequest(str(exc)) from None
    if not raw.strip():
        return None
    try:
        return strict_json.loads(raw)
    except strict_json.RefusedJSON as exc:
        raise errors.NeutronBadRequest(str(exc)) from None
    except ValueError:
        raise errors.NeutronBadRequest('Body contains invalid data') from None

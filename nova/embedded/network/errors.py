"""Errors of the embedded network service: HTTP status plus Neutron's error type name."""


class NeutronAPIError(Exception):
    """Base of every error the WSGI layer turns into a ``NeutronError`` body.

    ``kind`` is the ``type`` Neutron reports (its exception class name), so
    clients that switch on it (openstacksdk, Nova's Neutron client) see the
    same value as from Neutron.
    """

    code = 500
    kind = 'HTTPInternalServerError'

    def __init__(self, message, kind=None, headers=None):
        super().__init__(message)
        self.message = message
        if kind:
            self.kind = kind
        self.headers = headers or {}


class NeutronBadRequest(NeutronAPIError):
    code = 400
    kind = 'HTTPBadRequest'


class NeutronInvalidInput(NeutronBadRequest):
    """Neutron's InvalidInput: the message carries its fixed prefix."""

    kind = 'InvalidInput'

    def __init__(self, error_message, kind=None):
        super().__init__('Invalid input for operation: %s.' % error_message,
                         kind=kind)


class NeutronUnauthorized(NeutronAPIError):
    code = 401
    kind = 'HTTPUnauthorized'


class NeutronForbidden(NeutronAPIError):
    code = 403
    kind = 'PolicyNotAuthorized'


class NeutronNotFound(NeutronAPIError):
    code = 404
    kind = 'HTTPNotFound'


class NeutronMethodNotAllowed(NeutronAPIError):
    code = 405
    kind = 'HTTPMethodNotAllowed'


class NeutronConflict(NeutronAPIError):
    code = 409
    kind = 'Conflict'


class NeutronRequestTooLarge(NeutronAPIError):
    code = 413
    kind = 'HTTPRequestEntityTooLarge'


def not_found(kind, message):
    """A 404 under one of Neutron's NotFound type names (NetworkNotFound...)."""
    return NeutronNotFound(message, kind=kind)


def policy(rules):
    """Neutron's 403 for a denied action: the checked rules, joined as it joins them."""
    names = ['rule:%s' % rule for rule in rules]
    text = names[0] if len(names) == 1 else '(%s)' % ' and '.join(names)
    return NeutronForbidden('%s is disallowed by policy' % text)


def fault_body(exc):
    """The JSON body Neutron sends with an error status."""
    return {'NeutronError': {'type': exc.kind, 'message': exc.message,
                             'detail': ''}}

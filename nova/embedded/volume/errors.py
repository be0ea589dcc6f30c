"""Errors of the embedded volume service, each carrying its HTTP code and Cinder fault name."""


class VolumeAPIError(Exception):
    """Base of every error the WSGI layer turns into a Cinder fault body."""

    code = 500

    def __init__(self, message, headers=None):
        super().__init__(message)
        self.message = message
        self.headers = headers or {}


class BadRequest(VolumeAPIError):
    code = 400


class Unauthorized(VolumeAPIError):
    code = 401


class Forbidden(VolumeAPIError):
    code = 403


class NotFound(VolumeAPIError):
    code = 404


class MethodNotAllowed(VolumeAPIError):
    code = 405


class NotAcceptable(VolumeAPIError):
    code = 406


class Conflict(VolumeAPIError):
    code = 409


class RequestTooLarge(VolumeAPIError):
    code = 413


# Cinder's Fault names the body's top-level key after the status code.
FAULT_NAMES = {
    400: 'badRequest', 401: 'unauthorized', 403: 'forbidden',
    404: 'itemNotFound', 405: 'badMethod', 409: 'conflictingRequest',
    413: 'overLimit', 415: 'badMediaType', 429: 'overLimit',
    501: 'notImplemented', 503: 'serviceUnavailable',
}


def fault_body(code, message):
    """The JSON body Cinder sends with an error status."""
    return {FAULT_NAMES.get(code, 'computeFault'): {'message': message,
                                                     'code': code}}

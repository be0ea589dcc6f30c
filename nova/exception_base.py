"""The bases of every nova exception (its code and message); callers use nova.exception."""


class NovaException(Exception):
    """Base exception: ``msg_fmt`` is formatted with the keyword arguments."""

    msg_fmt = "An unknown exception occurred."
    code = 500

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        if message is None:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError, ValueError):
                message = self.msg_fmt
        self.message = str(message)
        super().__init__(self.message)

    def format_message(self):
        return self.message


class Invalid(NovaException):
    msg_fmt = "%(reason)s"
    code = 400


class Forbidden(NovaException):
    msg_fmt = "Policy doesn't allow %(action)s to be performed."
    code = 403


class NotFound(NovaException):
    msg_fmt = "Resource could not be found."
    code = 404


class Conflict(NovaException):
    msg_fmt = "Conflict: %(reason)s"
    code = 409


class QuotaError(NovaException):
    msg_fmt = "Quota exceeded: code=%(code)s"
    code = 403


# Remote callers rebuild an exception from its module and name (oslo.messaging
# allows nova.exception only): each class answers to the module that exports it.
for _cls in (NovaException, Invalid, Forbidden, NotFound, Conflict, QuotaError):
    _cls.__module__ = 'nova.exception'

"""systemd notifications (Type=notify): READY=1 once started, STOPPING=1 on the way out."""

import logging
import os
import socket

LOG = logging.getLogger(__name__)


class SystemdNotifier:
    """Talks to the socket systemd named in NOTIFY_SOCKET, if any.

    The variable is taken out of the environment, as sd_notify(3)'s
    unset_environment does: processes the service starts later (qemu-img,
    helpers) must not speak for it.
    """

    def __init__(self, environ=None):
        environ = os.environ if environ is None else environ
        address = environ.pop('NOTIFY_SOCKET', '') or ''
        if address.startswith('@'):
            # Linux abstract namespace.
            address = '\0' + address[1:]
        self.address = address

    def send(self, *fields):
        """Send ``KEY=value`` fields in one datagram; a failure is only logged."""
        if not self.address:
            return False
        message = '\n'.join(fields).encode()
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.connect(self.address)
                sock.sendall(message)
        except OSError as exc:
            LOG.warning('Cannot notify systemd at %s: %s', self.address.lstrip('\0'), exc)
            return False
        return True

    def ready(self):
        return self.send('READY=1', 'STATUS=running, pid %d' % os.getpid())

    def stopping(self):
        return self.send('STOPPING=1', 'STATUS=stopping: finishing work in flight')

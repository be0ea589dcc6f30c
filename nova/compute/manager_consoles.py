"""Compute manager: where a guest's remote console (VNC, SPICE, serial) can be reached."""

import oslo_messaging as messaging

from nova import exception
from nova.compute import manager_core

# console type -> driver method answering {'host', 'port', 'internal_access_path'}
# (and, for SPICE, 'tls_port')
_DRIVER_METHODS = {'novnc': 'get_vnc_console', 'serial': 'get_serial_console',
                   'spice-html5': 'get_spice_console', 'spice-direct': 'get_spice_console'}


class ConsolesManager:
    """Where the remote console of a guest on this host is reached."""

    target = manager_core.RPC_TARGET

    def __init__(self, driver):
        self.driver = driver

    # Refusals reach the API as 4xx without a traceback in this host's log.
    @messaging.expected_exceptions(exception.Invalid, exception.Conflict,
                                   exception.NotFound)
    def get_console_connect_info(self, context, instance, console_type):
        method = _DRIVER_METHODS.get(console_type)
        getter = getattr(self.driver, method, None) if method else None
        if getter is None:
            raise exception.ConsoleTypeUnavailable(console_type=console_type)
        return dict(getter(context, instance))

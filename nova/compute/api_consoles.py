"""Remote consoles in the compute API: ask the host where the console is, issue a token."""

from nova import exception
from nova import vm_states as vs
from nova.console import tokens
from nova.objects import instance as instance_obj


class ConsolesAPI:
    """Console URLs (a token per URL) and os-console-auth-tokens."""

    def __init__(self, conf, db, compute_rpcapi):
        self._conf = conf
        self._db = db
        self._compute_rpcapi = compute_rpcapi

    def _console_base_url(self, console_type):
        if console_type == 'novnc':
            if not self._conf.vnc.enabled:
                raise exception.ConsoleTypeUnavailable(console_type=console_type)
            return self._conf.vnc.novncproxy_base_url
        if console_type == 'serial':
            if not self._conf.serial_console.enabled:
                raise exception.ConsoleTypeUnavailable(console_type=console_type)
            return self._conf.serial_console.base_url
        if console_type in ('spice-html5', 'spice-direct'):
            if not self._conf.spice.enabled:
                raise exception.ConsoleTypeUnavailable(console_type=console_type)
            # spice-direct: a native SPICE proxy outside this service answers the
            # URL; it learns the guest's host and port from the token (2.99).
            return (self._conf.spice.html5proxy_base_url if console_type == 'spice-html5'
                    else self._conf.spice.spice_direct_proxy_base_url)
        raise exception.ConsoleTypeUnavailable(console_type=console_type)

    def get_console_url(self, context, instance, console_type):
        """A fresh console URL for the instance; the token in it expires after
        [consoleauth] token_ttl seconds."""
        base_url = self._console_base_url(console_type)
        if not instance['host'] or instance['vm_state'] == vs.BUILDING:
            raise exception.InstanceNotReady(instance_id=instance['uuid'])
        info = self._compute_rpcapi.get_console_connect_info(
            context, instance_obj.Instance.from_db(instance), instance['host'],
            console_type)
        _token, url = tokens.issue(self._db, self._conf.consoleauth.token_ttl,
                                   instance['uuid'], console_type, info, base_url)
        return url

    def console_token_show(self, context, token):
        """The connection a valid token opens (admin view); InvalidToken otherwise.

        A native SPICE proxy relays to what this answers: a token whose
        console moved or stopped is refused here as the proxies refuse it.
        """
        row = tokens.validate(self._db, token)
        if not tokens.is_current(self._db, self._compute_rpcapi, row):
            raise exception.InvalidToken(token='***')
        return row

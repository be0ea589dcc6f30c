"""The guests' taps: watching links come and go, enslaving them to the bridge, detaching strays."""

import logging
import re
import subprocess
import threading

LOG = logging.getLogger(__name__)
# Nova's devname for a port: "tap" + the first 11 characters of its UUID.
_PORT_TAP = re.compile(r'^tap[0-9a-f]{8}-[0-9a-f]{2}$')


def is_port_tap(name):
    return bool(_PORT_TAP.match(name))


def links(namespace):
    """{name: ip -j link entry} of every link in the namespace."""
    return {link['ifname']: link for link in namespace.ip_json('link', 'show')}


def enslave(namespace, name, bridge, mtu, host_mac=None):
    argv = ['ip', 'link', 'set', 'dev', name, 'master', bridge, 'mtu', str(mtu)]
    if host_mac:
        argv += ['address', host_mac]
    namespace.run(argv + ['up'])


def detach(namespace, name):
    namespace.run(['ip', 'link', 'set', 'dev', name, 'nomaster'], check=False)


class LinkWatcher:
    """Calls ``on_change()`` whenever a link appears, changes or goes (``ip monitor``)."""

    def __init__(self, namespace, on_change):
        self._ns = namespace
        self._on_change = on_change
        self._proc = None
        self._thread = None

    def start(self):
        self._proc = subprocess.Popen(self._ns.wrap(['ip', '-o', 'monitor', 'link']),
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                      text=True, close_fds=True)
        self._thread = threading.Thread(target=self._read, name='net-links', daemon=True)
        self._thread.start()

    def _read(self):
        for _line in self._proc.stdout:
            try:
                self._on_change()
            except Exception:
                LOG.exception('link change handling failed')

    def stop(self):
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc.stdout.close()
            self._thread.join(5)
            self._proc = None

"""Carry TCP between network namespaces: listen in one, connect in another, copy bytes.

    netns_relay.py [--pidfile F] RULE...
    RULE  = LISTEN=CONNECT, each [NETNS@]HOST:PORT (no NETNS: the relay's own namespace)

For example ``nova-pub@127.0.0.1:5000=127.0.0.1:5000`` makes Keystone on the root
namespace's loopback answer on the loopback of the namespace nova-pub. TCP on one
namespace's loopback cannot be reached from another, so tools/neutron.sh runs one relay
for every port a process inside a namespace must reach (and the reverse). Standard library
only. A namespace is entered with setns(2) through ctypes: a socket belongs to the
namespace its creating thread was in, so listening sockets are made while the main thread
sits in the listening namespace, and each outgoing connection is made by a thread that
enters the connecting namespace first (setns changes the calling thread only).
"""

import argparse
import ctypes
import os
import signal
import socket
import sys
import threading

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def setns(path):
    """Move the calling thread into the network namespace at ``path``."""
    fd = os.open(path, os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, 'setns(%s): %s' % (path, os.strerror(err)))
    finally:
        os.close(fd)


def netns_path(name):
    return name if name.startswith('/') else '/run/netns/' + name


class Endpoint:
    """A [NETNS@]HOST:PORT of a rule."""

    def __init__(self, text):
        netns, _, address = text.rpartition('@')
        host, _, port = address.rpartition(':')
        if not host or not port.isdigit():
            raise ValueError('not [NETNS@]HOST:PORT: %r' % text)
        self.netns = netns or None
        self.host, self.port = host, int(port)

    def __str__(self):
        return '%s%s:%d' % (self.netns + '@' if self.netns else '', self.host, self.port)


def _pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        # Half-close so the far side sees end-of-file but can still answer.
        for sock, how in ((dst, socket.SHUT_WR), (src, socket.SHUT_RD)):
            try:
                sock.shutdown(how)
            except OSError:
                pass


def _serve_one(client, target):
    try:
        if target.netns:
            setns(netns_path(target.netns))
        upstream = socket.create_connection((target.host, target.port), timeout=10)
        upstream.settimeout(None)
    except OSError:
        client.close()
        return
    back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
    back.start()
    _pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def _accept_loop(server, target):
    while True:
        try:
            client, _addr = server.accept()
        except OSError:
            continue
        threading.Thread(target=_serve_one, args=(client, target), daemon=True).start()


def listen(endpoint, own_netns):
    """A listening socket in ``endpoint``'s namespace (the main thread comes back)."""
    if endpoint.netns:
        setns(netns_path(endpoint.netns))
    try:
        return socket.create_server((endpoint.host, endpoint.port), reuse_port=False,
                                    backlog=128)
    finally:
        if endpoint.netns:
            setns(own_netns)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--pidfile')
    parser.add_argument('rules', nargs='+', metavar='LISTEN=CONNECT')
    args = parser.parse_args(argv)
    # A handle on our own namespace, to return to after each listening socket.
    own = '/proc/self/ns/net'
    own_fd_path = '/proc/%d/fd/%d' % (os.getpid(), os.open(own, os.O_RDONLY))
    servers = []
    for rule in args.rules:
        left, sep, right = rule.partition('=')
        if not sep:
            parser.error('rule %r has no "="' % rule)
        source, target = Endpoint(left), Endpoint(right)
        try:
            servers.append((listen(source, own_fd_path), target))
        except OSError as exc:
            sys.exit('netns_relay: cannot listen on %s: %s' % (source, exc))
        print('netns_relay: %s -> %s' % (source, target), flush=True)
    for server, target in servers:
        threading.Thread(target=_accept_loop, args=(server, target), daemon=True).start()
    if args.pidfile:
        with open(args.pidfile, 'w') as f:
            f.write('%d\n' % os.getpid())
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print('netns_relay: ready', flush=True)
    threading.Event().wait()


if __name__ == '__main__':
    main()

"""The test Neutron of tools/neutron.sh for functional tests: settings, skips, namespaces."""

import ctypes
import http.client
import json
import os
import socket
import subprocess
import threading
import urllib.request

import pytest

ENV_FILE = os.environ.get('NOVA_TEST_NEUTRON_ENV', '/var/lib/nova-compat/neutron.env')
CLONE_NEWNET = 0x40000000
OSVIF_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'osvif_plug.py')


def load_env(path=ENV_FILE):
    """The NOVA_NEUTRON_* settings tools/neutron.sh wrote, as a dict ({} without one)."""
    values = {}
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith('export ') and '=' in line:
                    key, _, value = line[len('export '):].partition('=')
                    values[key] = value.strip("'")
    except OSError:
        return {}
    return values


def require_neutron():
    """The settings, or skip: tools/neutron.sh not started, or its API not answering."""
    env = load_env()
    if not env:
        pytest.skip('no %s: start the test Neutron with tools/neutron.sh (after '
                    'tools/keystone.sh)' % ENV_FILE)
    if os.geteuid() != 0:
        pytest.skip('the Neutron environment tests enter network namespaces: run as root')
    try:
        with urllib.request.urlopen(env['NOVA_NEUTRON_URL'] + '/', timeout=5):
            pass
    except OSError as exc:
        pytest.skip('the test Neutron does not answer at %s (%s): tools/neutron.sh status'
                    % (env['NOVA_NEUTRON_URL'], exc))
    return env


def hypervisor(env, number):
    """Settings of hypervisor (chassis) 1 or 2, or skip when the stack has fewer."""
    suffix = '' if number == 1 else '_%d' % number
    if 'NOVA_NEUTRON_HOST' + suffix not in env:
        pytest.skip('the test Neutron runs %s chassis (NOVA_NEUTRON_CHASSIS)'
                    % env.get('NOVA_NEUTRON_CHASSIS', '1'))
    return {key: env['NOVA_NEUTRON_' + name + suffix] for key, name in (
        ('host', 'HOST'), ('netns', 'HV_NETNS'), ('libvirt_uri', 'LIBVIRT_URI'),
        ('ovsdb', 'OVSDB'), ('privsep_helper', 'PRIVSEP_HELPER'))}


def _setns(netns):
    fd = os.open('/run/netns/' + netns, os.O_RDONLY)
    try:
        if ctypes.CDLL(None, use_errno=True).setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), 'setns(%s)' % netns)
    finally:
        os.close(fd)


def in_netns(netns, func, *args):
    """Call ``func(*args)`` on a thread inside ``netns`` (setns moves only that thread);
    a socket it returns stays in that namespace."""
    result = {}

    def run():
        try:
            _setns(netns)
            result['value'] = func(*args)
        except BaseException as exc:   # re-raised in the caller
            result['error'] = exc
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if 'error' in result:
        raise result['error']
    return result['value']


def connect(netns, host, port, timeout=5):
    """A TCP connection made from inside ``netns``."""
    return in_netns(netns, socket.create_connection, (host, port), timeout)


def http_get(netns, host, port, path):
    """(status, body) of a GET sent from inside ``netns``."""
    conn = http.client.HTTPConnection(host, port, timeout=10)
    conn.sock = connect(netns, host, port)
    try:
        conn.request('GET', path)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def ip(netns, *args):
    """Output of ``ip -n NETNS ARGS``."""
    return subprocess.run(['ip', '-n', netns] + list(args), capture_output=True, text=True,
                          check=False).stdout


def ip_root_links():
    """``ip -o link`` of the root namespace (which must never get a tap)."""
    return subprocess.run(['ip', '-o', 'link'], capture_output=True, text=True,
                          check=False).stdout


def vsctl(hv, *args):
    """ovs-vsctl on the ovsdb of hypervisor ``hv`` (see hypervisor())."""
    return subprocess.run(['ovs-vsctl', '--db=' + hv['ovsdb'], '--timeout=20']
                          + list(args), capture_output=True, text=True, check=True).stdout


def osvif(env, hv, action, **spec):
    """Plug or unplug a VIF on hypervisor ``hv`` with os-vif from the environment's
    virtualenv, configured as that host's nova-compute would be."""
    spec.update(ovsdb=hv['ovsdb'], privsep_helper=hv['privsep_helper'])
    proc = subprocess.run([env['NOVA_NEUTRON_VENV'] + '/bin/python', OSVIF_SCRIPT, action,
                           json.dumps(spec)], capture_output=True, text=True, timeout=120,
                          check=False)
    if proc.returncode != 0:
        raise AssertionError('os-vif %s failed: %s' % (action, proc.stderr[-2000:]))
    return proc

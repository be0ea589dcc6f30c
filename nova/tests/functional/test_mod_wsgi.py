"""The compute API under Apache mod_wsgi: the shipped etc/apache2/nova-api.conf, run by apache2."""

import http.client
import os
import pathlib
import pwd
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time

import pytest

from nova.tests.functional import test_api_server as api_server

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
MODULES = '/usr/lib/apache2/modules'
DEBIAN_MODULE = os.path.join(MODULES, 'mod_wsgi.so')
INSTALL = ('apt-get install apache2-bin libapache2-mod-wsgi-py3 with a virtualenv made from '
           "the distribution's python3 (tools/install.sh), or apt-get install apache2-dev "
           'and pip install mod_wsgi into the virtualenv')


def _debian_module_fits():
    """Debian's module embeds the distribution's libpython: it serves a
    virtualenv made from that same interpreter only."""
    if not os.path.exists(DEBIAN_MODULE) or sys.base_prefix != '/usr':
        return False
    with open(DEBIAN_MODULE, 'rb') as handle:
        return b'libpython%d.%d.so' % sys.version_info[:2] in handle.read()


def _module_location():
    """Apache and a mod_wsgi built for this virtualenv's Python, or skip."""
    apache = shutil.which('apache2') or '/usr/sbin/apache2'
    if not os.path.exists(apache) or not os.path.isdir(MODULES):
        pytest.skip('Apache is not installed: ' + INSTALL)
    express = os.path.join(os.path.dirname(sys.executable), 'mod_wsgi-express')
    if os.path.exists(express):
        # pip's mod_wsgi, compiled against this very interpreter.
        return apache, subprocess.run([express, 'module-location'], capture_output=True,
                                      text=True, check=True, timeout=60).stdout.strip()
    if _debian_module_fits():
        return apache, DEBIAN_MODULE
    pytest.skip('no mod_wsgi for the Python of this virtualenv (%s): %s'
                % (sys.base_prefix, INSTALL))


def _readable_by_others(path):
    """Whether a user other than the owner can reach and read ``path``."""
    path = os.path.abspath(path)
    if not os.stat(path).st_mode & stat.S_IROTH:
        return False
    while path != '/':
        path = os.path.dirname(path)
        if not os.stat(path).st_mode & stat.S_IXOTH:
            return False
    return True


def _link_tree(src, dst):
    def link(s, d):
        try:
            os.link(s, d)
        except OSError:
            shutil.copy2(s, d)
    shutil.copytree(src, dst, symlinks=True, copy_function=link,
                    ignore=shutil.ignore_patterns('site-packages', 'test', 'idlelib',
                                                  'tkinter'))


def _python_home(work):
    """python-home as documented (the virtualenv), unless Apache's unprivileged
    user cannot read the interpreter the virtualenv was made from (a Python
    installed under a private home directory): then a linked copy of its
    standard library, with the virtualenv's packages on python-path."""
    stdlib = sysconfig.get_paths()['stdlib']
    if _readable_by_others(stdlib):
        return sys.prefix, ''
    home = os.path.join(work, 'python')
    _link_tree(stdlib, os.path.join(home, 'lib', os.path.basename(stdlib)))
    return home, sysconfig.get_paths()['purelib']


def _site(work, port, user, group, state):
    """The shipped site, only the port, paths and daemon user changed."""
    with open(os.path.join(ROOT, 'etc', 'apache2', 'nova-api.conf')) as handle:
        text = handle.read()
    home, packages = _python_home(work)
    # The checkout comes first, as PYTHONPATH does for the other servers.
    path = ':'.join(p for p in (ROOT, packages) if p)
    for old, new in (('Listen 8774', 'Listen 127.0.0.1:%d' % port),
                     ('<VirtualHost *:8774>', '<VirtualHost *:%d>' % port),
                     ('user=nova group=nova', 'user=%s group=%s' % (user, group)),
                     ('home=/var/lib/nova', 'home=%s' % state),
                     ('python-home=/opt/nova/.venv',
                      'python-home=%s python-path=%s' % (home, path)),
                     ('/etc/nova', os.path.join(ROOT, 'etc', 'nova'))):
        assert old in text, old
        text = text.replace(old, new)
    return text


def _httpd_conf(work, module, site, user, group):
    loads = ''.join('LoadModule %s_module %s/mod_%s.so\n' % (name, MODULES, name)
                    for name in ('mpm_event', 'authz_core'))
    return ('ServerRoot %(w)s\nServerName 127.0.0.1\nPidFile %(w)s/httpd.pid\n'
            'DefaultRuntimeDir %(w)s\nMutex file:%(w)s default\n'
            'ErrorLog %(w)s/error.log\nLogLevel info\nDefine APACHE_LOG_DIR %(w)s\n'
            'User %(user)s\nGroup %(group)s\n'
            '%(loads)sLoadModule wsgi_module %(module)s\nWSGISocketPrefix %(w)s/wsgi\n'
            '%(site)s' % {'w': work, 'loads': loads, 'module': module, 'site': site,
                       'user': user, 'group': group})


@pytest.fixture
def apache():
    apache_bin, module = _module_location()
    # A directory Apache's unprivileged user can read (pytest's own is private).
    work = tempfile.mkdtemp(prefix='nova-mod-wsgi-')
    os.chmod(work, 0o755)
    if os.geteuid() == 0:
        # Apache refuses to serve as root; its processes run as nobody, which
        # also writes the log and reads the database.
        user, group = 'nobody', 'nogroup'
    else:
        user = pwd.getpwuid(os.geteuid()).pw_name
        group = user
    for path in (ROOT, sysconfig.get_paths()['purelib']):
        if not _readable_by_others(path) and os.geteuid() == 0:
            pytest.skip('%s is not readable by Apache\'s unprivileged user' % path)
    port = api_server.free_port()
    state = os.path.join(work, 'state')
    os.mkdir(state)
    api_server.write_conf(pathlib.Path(state), port)
    if os.geteuid() == 0:
        entry = pwd.getpwnam(user)
        for dirpath, _dirs, files in os.walk(state):
            for name in [dirpath] + [os.path.join(dirpath, f) for f in files]:
                os.chown(name, entry.pw_uid, entry.pw_gid)
    conf = os.path.join(work, 'httpd.conf')
    with open(conf, 'w') as handle:
        handle.write(_httpd_conf(work, module, _site(work, port, user, group, state),
                                 user, group))
    env = dict(os.environ, PYTHONPATH=ROOT, OS_NOVA_CONFIG_DIR=state)
    proc = subprocess.Popen([apache_bin, '-f', conf, '-DFOREGROUND'], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        api_server.wait_listening(port, proc, timeout=60)
        yield {'proc': proc, 'port': port, 'state': state, 'work': work}
    finally:
        api_server.stop(proc)
        shutil.rmtree(work, ignore_errors=True)


def _get(port, path, headers=None):
    # The first request waits while a daemon process loads the application.
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=90)
    try:
        return api_server.get(conn, path, headers)
    finally:
        conn.close()


def test_compute_api_under_mod_wsgi(apache):
    resp, body = _get(apache['port'], '/v2.1/flavors/1',
                      {'OpenStack-API-Version': 'compute 2.61'})
    assert resp.status == 200, body
    assert b'"m1.tiny"' in body
    assert resp.getheader('OpenStack-API-Version') == 'compute 2.61'
    assert resp.getheader('x-openstack-request-id').startswith('req-')
    conn = http.client.HTTPConnection('127.0.0.1', apache['port'], timeout=60)
    conn.request('GET', '/v2.1/servers')
    resp = conn.getresponse()
    resp.read()
    assert resp.status == 401
    conn.close()
    # The configuration came from OS_NOVA_CONFIG_DIR in Apache's environment:
    # the access log went to its log_file, written by a daemon process.
    log = os.path.join(apache['state'], 'nova-api.log')
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if '"GET /v2.1/flavors/1" status: 200' in open(log).read():
            break
        time.sleep(0.2)
    else:
        raise AssertionError(open(log).read())
    with open(os.path.join(apache['work'], 'error.log')) as handle:
        errors = handle.read()
    assert 'mod_wsgi' in errors and 'Traceback' not in errors, errors
    apache['proc'].terminate()
    assert apache['proc'].wait(timeout=60) == 0

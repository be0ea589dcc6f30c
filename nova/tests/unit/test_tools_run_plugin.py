"""tools/run-plugin.sh: virtualenv reuse by inputs, its own tempest.conf, failures propagate."""

import os
import pathlib
import re
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
SCRIPT = REPO / 'tools' / 'run-plugin.sh'

FAKE_TEMPEST = """#!/bin/sh
# Stands in for tempest in a virtualenv whose inputs are unchanged.
case $1 in
  list-plugins) echo '| novaext | novaext_tempest_plugin.plugin:NovaExtTempestPlugin |' ;;
  init)
    # As tempest: a name already in the registry (--workspace-path, else ~/.tempest) fails.
    registry=$HOME/.tempest/workspace.yaml name=
    shift
    while [ $# -gt 1 ]; do
      case $1 in --workspace-path) registry=$2; shift 2 ;; --name) name=$2; shift 2 ;;
                 *) shift ;; esac
    done
    name=${name:-$(basename "$1")}
    if grep -q "^$name:" "$registry" 2>/dev/null; then
      echo "A workspace already exists with name: $name."; exit 1
    fi
    mkdir -p "$(dirname "$registry")" "$1/etc"
    echo "$name: $1" >> "$registry" ;;
  run)
    echo "dir=$TEMPEST_CONFIG_DIR file=$TEMPEST_CONFIG args=$*" > "$FAKE_LOG"
    cp "$TEMPEST_CONFIG_DIR/$TEMPEST_CONFIG" "$FAKE_LOG.conf"
    exit "${FAKE_RC:-0}" ;;
esac
"""

pytestmark = pytest.mark.skipif(not os.path.exists('/bin/bash'), reason='needs bash')


def _bash(code, *args, env=None):
    """Run ``code`` with run-plugin.sh's pins and inputs_hash() defined."""
    prelude = ('eval "$(grep -E \'^(OSC|SDK|TEMPEST)_VERSION=\' %s)"; '
               'eval "$(sed -n \'/^inputs_hash() {/,/^}/p\' %s)"; ' % (SCRIPT, SCRIPT))
    return subprocess.run(['bash', '-c', prelude + code, 'bash', *args], env=env,
                          capture_output=True, text=True, check=True).stdout.strip()


def _hash(*inputs, env=None):
    return _bash('inputs_hash "$@"', *inputs, env=env)


def test_inputs_hash_follows_sources_and_pins_not_build_leftovers(tmp_path):
    src = tmp_path / 'dist'
    (src / 'pkg').mkdir(parents=True)
    (src / 'pkg' / 'mod.py').write_text('X = 1\n')
    first = _hash('%s[test]' % src, 'tempest==1')
    assert first == _hash('%s[test]' % src, 'tempest==1')
    # What pip and Python leave in the source tree does not count.
    for leftover in ('build/lib/pkg/mod.py', 'dist_x.egg-info/PKG-INFO',
                     'pkg/__pycache__/mod.cpython-313.pyc'):
        (src / leftover).parent.mkdir(parents=True, exist_ok=True)
        (src / leftover).write_text('junk')
    assert first == _hash('%s[test]' % src, 'tempest==1')
    # A changed source, a new file or another pin does.
    (src / 'pkg' / 'mod.py').write_text('X = 2\n')
    changed = _hash('%s[test]' % src, 'tempest==1')
    assert changed != first
    (src / 'pkg' / 'new.py').write_text('')
    assert _hash('%s[test]' % src, 'tempest==1') != changed
    assert _hash('%s[test]' % src, 'tempest==2') != _hash('%s[test]' % src, 'tempest==1')
    env = dict(os.environ, PIP_ARGS='--index-url http://127.0.0.1:9/simple')
    assert _hash('%s[test]' % src, 'tempest==1', env=env) != _hash('%s[test]' % src,
                                                                    'tempest==1')


def _plugin_run(tmp_path, **extra_env):
    """run-plugin.sh plugin with a reused (fake) tempest virtualenv."""
    novaext = tmp_path / 'novaext'
    venv = novaext / 'tempest-venv'
    (venv / 'bin').mkdir(parents=True)
    tempest = venv / 'bin' / 'tempest'
    tempest.write_text(FAKE_TEMPEST)
    tempest.chmod(0o755)
    stamp = _hash('tempest==%s' % _bash('echo "$TEMPEST_VERSION"'),
                  str(REPO / 'tempest-plugin'))
    (venv / '.novaext-inputs').write_text(stamp + '\n')
    cache = tmp_path / 'cache'
    cache.mkdir()
    (cache / 'vmlinuz').write_bytes(b'k')
    (cache / 'busybox').write_bytes(b'b')
    (cache / 'busybox').chmod(0o755)
    given = tmp_path / 'given.conf'
    given.write_text('[identity]\nuri_v3 = http://127.0.0.1:5000/v3\n')
    other = tmp_path / 'other'
    other.mkdir()
    (other / 'other.conf').write_text('[identity]\n')
    log = tmp_path / 'run.log'
    env = dict(os.environ, NOVAEXT_DIR=str(novaext), TEMPEST_CONF=str(given),
               NOVA_TEST_KERNEL_CACHE=str(cache), NOVAEXT_LIBVIRT_URI='',
               # What run-compat.sh exports for upstream tempest's workers.
               TEMPEST_CONFIG_DIR=str(other), TEMPEST_CONFIG='other.conf',
               FAKE_LOG=str(log), HOME=str(tmp_path / 'home'), **extra_env)
    env.pop('NOVAEXT_FRESH', None)
    env.pop('NOVAEXT_TEMPEST_VERSION', None)
    proc = subprocess.run(['bash', str(SCRIPT), 'plugin'], env=env, capture_output=True,
                          text=True, timeout=120)
    return proc, novaext, log, env


def test_plugin_runs_again_in_the_same_directory(tmp_path):
    proc, _novaext, _log, env = _plugin_run(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    again = subprocess.run(['bash', str(SCRIPT), 'plugin'], env=env, capture_output=True,
                           text=True, timeout=120)
    assert again.returncode == 0, again.stdout + again.stderr
    assert not (tmp_path / 'home' / '.tempest').exists()


def test_plugin_reuses_its_virtualenv_and_runs_with_its_own_config(tmp_path):
    proc, novaext, log, _env = _plugin_run(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 'reused: its inputs are unchanged' in proc.stdout
    ws_etc = novaext / 'tempest-workspace' / 'etc'
    assert 'dir=%s file=tempest.conf ' % ws_etc in log.read_text()
    assert '--config-file %s/tempest.conf' % ws_etc in log.read_text()
    conf = pathlib.Path(str(log) + '.conf').read_text()
    assert 'uri_v3 = http://127.0.0.1:5000/v3' in conf
    assert re.search(r'^rescue_bus_devices = .*sata:cdrom.*fdc:floppy$', conf, re.M)
    assert 'kernel_path = %s/cache/vmlinuz' % tmp_path in conf
    assert 'libvirt_uri' not in conf


def test_plugin_failure_fails_the_script(tmp_path):
    proc, _novaext, _log, _env = _plugin_run(tmp_path, FAKE_RC='1')
    assert proc.returncode != 0


def test_the_test_command_runs_the_plugin_by_default():
    compat = (REPO / 'tools' / 'run-compat.sh').read_text()
    assert '"${NOVA_COMPAT_PLUGIN:-1}" = 1' in compat
    assert 'tools/run-plugin.sh all' in compat
    tests = (REPO / 'tools' / 'run-tests.sh').read_text()
    code = [line for line in tests.splitlines() if not line.lstrip().startswith('#')]
    assert not any('NOVA_COMPAT_PLUGIN' in line for line in code)
    assert any(line.strip() == 'tools/run-compat.sh' for line in code)

"""The README's client commands run as written against a running all-in-one."""

import os
import re
import shutil
import subprocess
import sys

import pytest

from nova.cmd import aio
from nova.tests.functional import fixtures

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
README = os.path.join(REPO, 'README.md')


def readme_section(title):
    """The indented code lines of one ``## title`` section, continuations joined."""
    with open(README) as handle:
        text = handle.read()
    body = text.split('## %s\n' % title, 1)[1].split('\n## ', 1)[0]
    commands, current = [], ''
    for line in body.splitlines():
        if not line.startswith('    '):
            continue
        current += line.strip()
        if current.endswith('\\'):
            current = current[:-1] + ' '
            continue
        commands.append(current)
        current = ''
    return commands


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('readme')
    running = fixtures.RunningAio(tmp / 'state')
    running.workdir = tmp
    fixtures.tiny_disk(tmp / 'disk.img')
    # The README runs from the checkout, where .venv holds the clients.
    os.symlink(sys.prefix, tmp / '.venv')
    running.clouds = aio.write_clouds_yaml(running.conf, running.compute_url,
                                           running.image_url, running.aio.urls['volume'],
                                           running.aio.urls.get('identity'))
    yield running
    running.stop()


def run_script(cloud, commands, substitutions):
    script = '\n'.join(['set -euxo pipefail'] + commands)
    for old, new in substitutions.items():
        script = script.replace(old, new)
    env = {key: value for key, value in os.environ.items() if not key.startswith('OS_')}
    proc = subprocess.run(['bash', '-c', script], cwd=cloud.workdir, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def test_talking_to_the_all_in_one(cloud):
    commands = readme_section('Talking to the all-in-one')
    # Every command of the section is run, bar the endpoint-override export,
    # which the next test runs with a command of its own.
    user = [c for c in commands if c.startswith(('export OS_CLIENT', '.venv/bin/openstack'))]
    assert len(user) >= 10, commands
    key = cloud.workdir / 'id_ed25519'
    if not key.exists():
        subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', str(key)],
                       check=True)
    proc = run_script(cloud, user, {'/var/lib/nova/clouds.yaml': cloud.clouds,
                                    '~/.ssh/id_ed25519.pub': str(key) + '.pub'})
    assert 'vm1' in proc.stdout
    status, _h, body = cloud.request('GET', '/servers')
    assert status == 200 and body['servers'] == [], body
    status, _h, body = cloud.request('GET', '/os-aggregates', token='admin:admin')
    assert [agg['availability_zone'] for agg in body['aggregates']
            if agg['name'] == 'agg1'] == ['az1'], body
    status, _h, body = cloud.request('GET', '/os-quota-sets/notused', token='admin:admin')
    assert body['quota_set']['instances'] == 20, body


def test_endpoint_overrides_without_clouds_yaml(cloud):
    commands = readme_section('Talking to the all-in-one')
    exports = [c for c in commands if c.startswith('export OS_AUTH_TYPE=none')]
    assert len(exports) == 1, commands
    ports = {
        'http://127.0.0.1:8774': cloud.compute_url.rsplit('/v2.1', 1)[0],
        'http://127.0.0.1:9292': cloud.image_url.rstrip('/'),
    }
    proc = run_script(cloud, exports + ['.venv/bin/openstack flavor list -f value -c Name'],
                      ports)
    assert 'm1.tiny' in proc.stdout.split()


def test_readme_states_the_served_microversions():
    from nova.api import microversion
    with open(README) as handle:
        text = handle.read()
    top = re.search(r'microversions? (?:2\.1 )?(?:up )?to (2\.\d+)', text.split('\n## ')[0])
    assert top and top.group(1) == str(microversion.MAX_VERSION), top and top.group(0)


def test_readme_test_command_exists():
    assert shutil.which('bash')
    for script in ('tools/aio.sh', 'tools/run-tests.sh'):
        assert '    %s\n' % script in open(README).read()
        assert os.access(os.path.join(REPO, script), os.X_OK)

"""Fixtures: a recording stub cloud per test and the openstack CLI run against it."""

import json
import os
import subprocess
import sys

import pytest

from novaextclient.tests.unit import stub

OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')


@pytest.fixture
def make_cloud():
    clouds = []

    def make(max_version='2.106'):
        cloud = stub.StubCloud(max_version)
        clouds.append(cloud)
        return cloud
    yield make
    for cloud in clouds:
        cloud.stop()


def run_cli(cloud, *args, check=True, env=None):
    """Run the real openstack CLI against ``cloud``; JSON output when check."""
    full = {k: v for k, v in os.environ.items()
            if not k.startswith('OS_') and not k.startswith('OPENSTACK')}
    full.update(cloud.env())
    full.update(env or {})
    proc = subprocess.run([OPENSTACK, *args], env=full, capture_output=True, text=True,
                          timeout=120)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def cli_json(cloud, *args, env=None):
    return json.loads(run_cli(cloud, *args, '-f', 'json', env=env).stdout)

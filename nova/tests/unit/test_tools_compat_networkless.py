"""tools/compat_networkless: tempest's compute classes stop asking for a default network."""

import pathlib
import subprocess
import sys

HOOK = pathlib.Path(__file__).resolve().parents[3] / 'tools' / 'compat_networkless'

BASE = '''
class BaseV2ComputeTest:
    create_default_network = False
'''
TESTS = '''
from tempest.api.compute import base

class ServersTest(base.BaseV2ComputeTest):
    create_default_network = True

class Deeper(ServersTest):
    pass

class Plain(base.BaseV2ComputeTest):
    pass

print(ServersTest.create_default_network, Deeper.create_default_network,
      Plain.create_default_network)
'''


def _tempest_tree(root):
    pkg = root / 'tempest' / 'api' / 'compute'
    pkg.mkdir(parents=True)
    for part in (root / 'tempest', root / 'tempest' / 'api', pkg):
        (part / '__init__.py').write_text('')
    (pkg / 'base.py').write_text(BASE)
    (pkg / 'test_servers.py').write_text(TESTS)


def _run(root, with_hook):
    path = ([str(HOOK)] if with_hook else []) + [str(root)]
    env = {'PYTHONPATH': ':'.join(path), 'PATH': '/usr/bin:/bin'}
    # site imports sitecustomize from the path at start-up, as in tempest's workers.
    out = subprocess.run([sys.executable, '-c', 'import tempest.api.compute.test_servers'],
                         env=env, capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_subclasses_no_longer_ask_for_a_default_network(tmp_path):
    _tempest_tree(tmp_path)
    assert _run(tmp_path, with_hook=False) == ['True', 'True', 'False']
    assert _run(tmp_path, with_hook=True) == ['False', 'False', 'False']

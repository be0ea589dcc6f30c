"""tools/long_functions.py: functions over the line limit, tests excluded."""

import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[3]


def _write(path, name, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    body = ''.join('    x = %d\n' % i for i in range(lines - 1))
    path.write_text('def %s():\n%s' % (name, body))


def test_lists_long_functions_outside_tests(tmp_path):
    _write(tmp_path / 'nova' / 'a.py', 'long_one', 61)
    _write(tmp_path / 'nova' / 'b.py', 'short_one', 60)
    _write(tmp_path / 'nova' / 'tests' / 'c.py', 'long_test', 90)
    out = subprocess.run([sys.executable, str(REPO / 'tools' / 'long_functions.py')],
                         cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ['61 nova/a.py:1 long_one']
    out = subprocess.run([sys.executable, str(REPO / 'tools' / 'long_functions.py'), '59'],
                         cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ['61 nova/a.py:1 long_one', '60 nova/b.py:1 short_one']

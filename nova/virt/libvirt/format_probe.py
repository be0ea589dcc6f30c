"""Run by path in a child process: oslo.utils' format inspector on one untrusted image file."""

# Deliberately no nova import: the service runs this file as a script in a
# fresh, resource-limited interpreter (see imagebackend.inspect_untrusted),
# so the untrusted data is parsed outside the service, and the inspector's
# imports (its LUKS helper loads the cryptography package, about 7 MB of
# resident memory) never enter the long-running process.

import json
import sys

from oslo_utils.imageutils import format_inspector


def probe(path):
    """{'format': name, 'failures': {check: message}} or {'error': message}."""
    try:
        inspector = format_inspector.detect_file_format(path)
    except format_inspector.ImageFormatError as exc:
        return {'error': str(exc)}
    failures = {}
    try:
        inspector.safety_check()
    except format_inspector.SafetyCheckFailed as exc:
        failures = {name: str(error) for name, error in exc.failures.items()}
    return {'format': inspector.NAME, 'failures': failures}


if __name__ == '__main__':
    sys.stdout.write(json.dumps(probe(sys.argv[1])) + '\n')

"""Merge INI files for tempest (later files win, option by option); print the result."""

import configparser
import sys


def merge(paths):
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    for path in paths:
        with open(path) as handle:
            parser.read_file(handle, source=path)
    return parser


def main():
    if len(sys.argv) < 2:
        sys.exit('usage: compat_conf_merge.py FILE...')
    merge(sys.argv[1:]).write(sys.stdout)


if __name__ == '__main__':
    main()

"""List functions in nova/ (tests excluded) longer than a number of lines (default 60)."""

import ast
import pathlib
import sys


def long_functions(root='nova', limit=60):
    """[(lines, 'path:line name')] of functions over ``limit`` lines, longest first."""
    rows = []
    for path in sorted(pathlib.Path(root).rglob('*.py')):
        if 'tests' in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > limit:
                    rows.append((lines, '%s:%d %s' % (path, node.lineno, node.name)))
    return sorted(rows, reverse=True)


if __name__ == '__main__':
    for lines, where in long_functions(limit=int(sys.argv[1]) if len(sys.argv) > 1 else 60):
        print(lines, where)

"""Rewrite the imports of TVM programs so that they run on tebound: ``import tvm`` becomes
``import tebound.tvm as tvm``, ``from tvm import te`` becomes ``from tebound.tvm import te``,
and every other form likewise (``import tvm.testing``, ``import numpy as np, tvm``, a conftest's
``pytest_plugins``). Nothing else in the file changes; strings and comments stay as they are.

Each PATH is a Python file or a folder, searched for .py files (hidden folders and __pycache__
left out); "-" reads standard input and writes standard output. Files are rewritten in place,
each keeping its old text beside it (FILE.py.bak) unless --no-backup is given.

exit status: 0 when done (or nothing to change), 1 with --check when a file would change,
2 when a path cannot be read or is not Python (each reported in one line; the others are done).

examples:
  tebound-port tutorial.py            rewrite it, keeping tutorial.py.bak
  tebound-port --check tests/         exit 1 if any file there still imports tvm
  tebound-port --diff tutorial.py     show what would change
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Iterator
from pathlib import Path

from tebound.cli.parser import CommandError, command_parser, run
from tebound.rewrite import rewrite

PROG = "tebound-port"


def python_files(path: Path) -> Iterator[Path]:
    """*path* itself if a file, else the .py files under it (hidden folders and caches left out)."""
    if path.is_file():
        yield path
        return
    if not path.is_dir():
        raise CommandError(f"{path}: no such file or folder")
    for found in sorted(path.rglob("*.py")):
        parts = found.relative_to(path).parts[:-1]
        if not any(p.startswith(".") or p == "__pycache__" for p in parts) and found.is_file():
            yield found


def ported(path: Path) -> tuple[str, str]:
    """The text of *path* and its rewrite."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise CommandError(f"{path}: not UTF-8 text (byte {err.start})") from None
    except OSError as err:
        raise CommandError(f"{path}: {err.strerror}") from None
    try:
        return text, rewrite(text)
    except SyntaxError as err:
        raise CommandError(f"{path}: line {err.lineno}: not Python ({err.msg})") from None


def main(argv: list[str] | None = None) -> int:
    parser = command_parser(PROG, __doc__)
    parser.add_argument("paths", nargs="+", metavar="PATH", help="Python files or folders, or - for standard input")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    mode.add_argument("--diff", action="store_true", help="change nothing; print what would change")
    parser.add_argument("--no-backup", action="store_true", help="keep no FILE.py.bak of a rewritten file")
    args = parser.parse_args(argv)
    return run(PROG, lambda: _port(args))


def _port(args) -> int:  # noqa: ANN001 - argparse.Namespace
    if "-" in args.paths:
        if len(args.paths) > 1:
            raise CommandError("'-' (standard input) cannot be given with other paths")
        try:
            text = rewrite(sys.stdin.read())
        except SyntaxError as err:
            raise CommandError(f"standard input: line {err.lineno}: not Python ({err.msg})") from None
        sys.stdout.write(text)
        return 0
    changed = unchanged = failed = 0
    for given in args.paths:
        try:
            files = list(python_files(Path(given)))
        except CommandError as err:
            print(f"{PROG}: {err}", file=sys.stderr)
            failed += 1
            continue
        for path in files:
            try:
                old, new = ported(path)
            except CommandError as err:
                print(f"{PROG}: {err}", file=sys.stderr)
                failed += 1
                continue
            if old == new:
                unchanged += 1
                continue
            changed += 1
            if args.check:
                print(f"would port {path}")
            elif args.diff:
                sys.stdout.writelines(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                                           f"{path}", f"{path} (ported)"))
            else:
                try:
                    _write(path, old, new, backup=not args.no_backup)
                except CommandError as err:
                    print(f"{PROG}: {err}", file=sys.stderr)
                    failed += 1
                    continue
                print(f"ported {path}")
    verb = "would be ported" if args.check or args.diff else "ported"
    print(f"{changed} file{'s' * (changed != 1)} {verb}, {unchanged} unchanged"
          + (f", {failed} failed" if failed else ""), file=sys.stderr)
    if failed:
        return 2
    return 1 if args.check and changed else 0


def _write(path: Path, old: str, new: str, backup: bool) -> None:
    try:
        if backup:
            path.with_name(path.name + ".bak").write_text(old, encoding="utf-8")
        path.write_text(new, encoding="utf-8")
    except OSError as err:
        raise CommandError(f"{path}: cannot write: {err.strerror}") from None

"""What every command shares: an argument parser with ``--version``, and errors that end the
command with one line on standard error instead of a traceback."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from tebound import __version__


class CommandError(Exception):
    """A failure the command reports in one line (exit status 2)."""


def command_parser(prog: str, doc: str) -> argparse.ArgumentParser:
    """A parser for *prog*, described by the first paragraph of *doc*, the rest as its epilog."""
    first, _, rest = doc.strip().partition("\n\n")
    parser = argparse.ArgumentParser(prog=prog, description=first, epilog=rest or None,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"{prog} (tebound) {__version__}")
    return parser


def run(prog: str, body: Callable[[], int]) -> int:
    """*body*'s exit status; a :class:`CommandError` printed as ``prog: message`` (status 2), a
    closed output pipe (``| head``) taken as the reader's choice (status 0)."""
    try:
        return body()
    except CommandError as err:
        print(f"{prog}: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader stopped early (``| head``): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130

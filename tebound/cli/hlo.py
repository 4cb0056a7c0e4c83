"""Print every instruction's operand maps in an HLO module: for each operand, the map from the
instruction's output index to the elements it reads, simplified as XLA prints them (through a
fusion, to the fusion's operands), or "unknown indexing".

Give modules dumped by XLA (--xla_dump_to) or written by hand. Each file that is not HLO text
is one line on standard error, with its line and column (an unclosed '{' where it opens), and
the exit status is then 1. "python -m bound.indexing" is the same command.

examples:
  tebound-hlo module.hlo              the maps of every instruction
  tebound-hlo --inverse module.hlo    the input-to-output maps too
"""

from __future__ import annotations

from bound.indexing.hlo_maps import main as report
from tebound.cli.parser import command_parser, run

PROG = "tebound-hlo"


def main(argv: list[str] | None = None) -> int:
    parser = command_parser(PROG, __doc__)
    return run(PROG, lambda: report(argv, parser))

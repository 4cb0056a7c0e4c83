"""Time to parse each module of ../shared/hlo_corpus and compute every instruction's operand
maps; prints the total and the slowest modules (the promise is at most a second each)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from bound import output_to_inputs
from schedule import hlo

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "hlo_corpus"


def measure(path: Path) -> tuple[float, float, int]:
    """(seconds to parse and build, seconds in all, instructions)."""
    start = time.perf_counter()
    mod = hlo.parse(path.read_text())
    parsed = time.perf_counter()
    for t in mod.instruction_tensors():
        output_to_inputs(t, mod.operands(t))
    return parsed - start, time.perf_counter() - start, sum(len(c.instructions) for c in mod.parsed.computations)


def main() -> None:
    paths = sorted(CORPUS.glob("*.hlo"))
    rows = []
    for path in paths:
        try:
            rows.append((*measure(path), path.name))
        except hlo.HloParseError as err:
            print(f"{path.name}: {err}", file=sys.stderr)
    rows.sort(key=lambda r: r[1])
    print(f"{len(rows)} modules in {sum(r[1] for r in rows):.1f} s")
    for parse_s, total_s, n, name in rows[-6:]:
        print(f"  {name}: {n} instructions, parse+build {parse_s:.2f} s, with maps {total_s:.2f} s")


if __name__ == "__main__":
    main()

"""Every instruction's operand maps in an HLO module, as text: ``python -m bound.indexing FILE.hlo``.

For a module dumped with ``--xla_dump_to``: each computation, each instruction with its HLO
line, and for each operand the maps from the instruction's output index to the operand's
elements (through a fusion, to the fusion's operands), or ``unknown indexing`` for an op whose
reads are unknown. Maps are printed simplified, as XLA prints them (``--no-simplify`` keeps
them as they are derived); ``--inverse`` adds the input-to-output maps. A file that is not HLO
text is one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from bound.indexing.analysis import output_to_inputs
from bound.indexing.indexing_map import IndexingMap
from bound.indexing.inverse import input_to_output
from schedule.base.errors import TeError
from schedule.xla import hlo


def _text(m: IndexingMap, simplify: bool) -> str:
    if m.is_undefined:
        return "unknown indexing"
    return str(m.simplify() if simplify else m)


def module_maps(mod: hlo.HloModule, inverse: bool = False, simplify: bool = True) -> Iterator[str]:
    """The lines of the report for *mod*."""
    for comp in mod.parsed.computations:
        env = mod.computations.get(comp.name)
        if env is None:
            continue  # built only as a fusion's body
        yield f"computation {comp.name}{' (ENTRY)' if comp.is_entry else ''}"
        names: dict[int, str] = {}  # a tensor's instruction in this computation
        for name, value in env.items():
            for t in hlo.tensors_of(value):
                names.setdefault(id(t), name)
        for ins in comp.instructions:
            yield f"  {ins.name} = {ins.opcode}  (line {ins.line})"
            if ins.opcode == "parameter":
                continue  # in a fusion's body, the fusion's operand itself
            leaves = hlo.tensors_of(env[ins.name])
            outputs = [t for t in leaves if mod.operands(t)]
            for t in outputs:
                if len(leaves) > 1:
                    yield f"    output {leaves.index(t)}:"
                xs = mod.operands(t)
                maps = output_to_inputs(t, xs)
                for j, x in enumerate(xs):
                    pad = "      " if len(leaves) > 1 else "    "
                    found = maps.get(x)
                    label = f"{pad}operand {j} ({names.get(id(x), x.name)})"
                    if not found:
                        yield f"{label}: not read"
                        continue
                    for m in found:
                        yield f"{label}: {_text(m, simplify)}"
                    if inverse and not any(m.is_undefined for m in found):
                        for m in input_to_output(t, x, stop_at=xs):
                            yield f"{pad}  inverse: {_text(m, simplify)}"


def main(argv: Sequence[str] | None = None, parser: argparse.ArgumentParser | None = None) -> int:
    """Print the report of each file; 1 if one does not parse (its error on stderr). *parser*
    is the command's own (``tebound-hlo``'s), which this fills in."""
    parser = parser or argparse.ArgumentParser(prog="python -m bound.indexing", description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, help="HLO text files")
    parser.add_argument("--inverse", action="store_true", help="also print the input-to-output maps")
    parser.add_argument("--no-simplify", action="store_true", help="print the maps as derived, not simplified")
    args = parser.parse_args(argv)
    status = 0
    for path in args.files:
        try:
            raw = path.read_bytes()
            text = raw.decode("utf-8")
            mod = hlo.parse(text)
        except OSError as err:
            print(f"{path}: {err.strerror}", file=sys.stderr)
            status = 1
            continue
        except UnicodeDecodeError as err:
            print(f"{path}: not HLO text: byte {err.start} (0x{raw[err.start]:02x}) is not UTF-8", file=sys.stderr)
            status = 1
            continue
        except (TeError, ValueError, RecursionError) as err:
            print(f"{path}: {err}", file=sys.stderr)
            status = 1
            continue
        if len(args.files) > 1:
            print(f"# {path}")
        for line in module_maps(mod, args.inverse, simplify=not args.no_simplify):
            print(line)
    return status

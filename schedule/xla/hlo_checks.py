"""What XLA's parser and verifier refuse in a module that parses, checked before it is built.

- An opcode XLA does not know (``addd``): XLA's parser refuses it, so it is not made an opaque op.
- Parameters: each computation numbers its own 0 to n-1, each once.
- A called computation (``to_apply``, ``calls``, ``body`` ...) takes as many parameters as its
  caller gives it.
- A ``bitcast`` keeps the bytes: its result has as many bits as its operand.
- A ``gather``'s ``slice_sizes`` has one size per operand dimension, each within it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from schedule.xla.hlo_lexer import HloParseError
from schedule.xla.hlo_parser import Computation, Instruction, ParsedModule, Shape
from schedule.xla.opcodes import known_opcode


def check_module(parsed: ParsedModule) -> None:
    """Refuse what XLA refuses (see the module).

    :raises HloParseError: naming the instruction, with its line and column.
    """
    comps = {c.name: c for c in parsed.computations}
    params = {c.name: _parameters(c) for c in parsed.computations}
    for comp in parsed.computations:
        by_name = {ins.name: ins for ins in comp.instructions}
        for ins in comp.instructions:
            if not known_opcode(ins.opcode):
                raise HloParseError(f"unknown opcode '{ins.opcode}' in '{ins.name}'", ins.line, ins.column)
            for key, expected in _callees(ins):
                for name in _names(ins.attrs.get(key, "")):
                    if name in comps and expected is not None and params[name] != expected:
                        raise HloParseError(f"{ins.opcode} '{ins.name}': {key}={name} takes {params[name]} "
                                            f"parameter(s), but {ins.opcode} gives it {expected}",
                                            *ins.attr_positions.get(key, (ins.line, ins.column)))
            check = _CHECKS.get(ins.opcode)
            if check is not None:
                operands = [by_name[o].shape if o in by_name else None for o in ins.operands]
                check(ins, operands)


def _parameters(comp: Computation) -> int:
    """How many parameters *comp* takes, once each is numbered 0 to n-1 exactly once."""
    seen: dict[int, Instruction] = {}
    for ins in comp.instructions:
        if ins.opcode != "parameter":
            continue
        try:
            k = int(ins.literal)
        except ValueError:
            raise HloParseError(f"parameter '{ins.name}' needs a number, as parameter(0)", ins.line,
                                ins.column) from None
        if k in seen:
            raise HloParseError(f"parameter({k}) is given twice in computation '{comp.name}' ('{seen[k].name}' "
                                f"on line {seen[k].line} and '{ins.name}')", ins.line, ins.column)
        seen[k] = ins
    for k, ins in seen.items():
        if not 0 <= k < len(seen):
            raise HloParseError(f"parameter({k}) is out of range in computation '{comp.name}', which has "
                                f"{len(seen)} parameter(s), numbered 0 to {len(seen) - 1}", ins.line, ins.column)
    return len(seen)


def _callees(ins: Instruction) -> list[tuple[str, int | None]]:
    """The computations *ins* calls, each with the number of parameters it gives it (None: not
    checked here)."""
    n = len(ins.operands)
    op = ins.opcode
    if op in ("reduce", "reduce-window", "map", "call", "fusion"):
        return [("to_apply", n), ("calls", n)]
    if op == "sort":
        return [("to_apply", 2 * n)]
    if op == "scatter":
        return [("to_apply", n - 1)]
    if op == "select-and-scatter":
        return [("select", 2), ("scatter", 2)]
    if op == "while":
        return [("condition", 1), ("body", 1)]
    return []


def _names(text: str) -> list[str]:
    return [n.strip().lstrip("%") for n in text.strip().strip("{}").split(",") if n.strip()]


def _bits(element_type: str) -> int | None:
    """Bits per element of an HLO element type (``pred`` is a byte); None for token and opaque."""
    if element_type == "pred":
        return 8
    found = re.search(r"\d+", element_type)
    return int(found[0]) if found else None


def _size_in_bits(shape: Shape) -> int | None:
    bits = _bits(shape.element_type)
    if bits is None or shape.is_tuple:
        return None
    count = 1
    for d in shape.dims:
        count *= d
    return count * bits


def _check_bitcast(ins: Instruction, operands: list[Shape | None]) -> None:
    if ins.shape is None or not operands or operands[0] is None:
        return
    out, src = _size_in_bits(ins.shape), _size_in_bits(operands[0])
    if out is not None and src is not None and out != src:
        raise HloParseError(f"bitcast '{ins.name}' turns {operands[0]} ({src // 8 if src % 8 == 0 else src / 8} "
                            f"bytes) into {ins.shape} ({out // 8 if out % 8 == 0 else out / 8} bytes); a bitcast keeps "
                            "the bytes (bitcast-convert changes the element type)", ins.line, ins.column)


def _check_gather(ins: Instruction, operands: list[Shape | None]) -> None:
    if not operands or operands[0] is None or "slice_sizes" not in ins.attrs:
        return
    dims = operands[0].dims
    sizes = [int(x) for x in re.findall(r"-?\d+", ins.attrs["slice_sizes"])]
    where = ins.attr_positions.get("slice_sizes", (ins.line, ins.column))
    if len(sizes) != len(dims):
        raise HloParseError(f"gather '{ins.name}': slice_sizes has {len(sizes)} size(s) for an operand of rank "
                            f"{len(dims)}", *where)
    for k, (size, n) in enumerate(zip(sizes, dims)):
        if not 0 <= size <= n:
            raise HloParseError(f"gather '{ins.name}': slice size {size} of dimension {k} is outside [0, {n}], "
                                f"the operand's {operands[0]}", *where)


_CHECKS: dict[str, Callable[[Instruction, list[Shape | None]], None]] = {
    "bitcast": _check_bitcast,
    "gather": _check_gather,
}

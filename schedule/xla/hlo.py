"""HLO text (as XLA dumps it) into tensors of the op library.

``mod = hlo.parse(text)``: ``mod.root`` is the entry computation's root (a tuple root gives a
tuple of tensors), ``mod["name"]`` an instruction's tensor, ``mod.operands(t)`` the HLO
operands of an instruction (a fusion's own operands). Fusions are built from their operands
(the called computation's parameters are those tensors), so analyses see through them; every
other computation is built on its own, its parameters as placeholders
(``mod.computations[name]``). Ops whose reads XLA's indexing analysis knows become computes;
any other op (``while``, ``call``, ``conditional``, collectives, custom calls ...) is opaque: an
extern over its operands, whose maps are undefined. Text that is not valid HLO raises
:class:`HloParseError` naming the line and column.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

from schedule.base.errors import TeError
from schedule.ir import arith
from schedule.ir.buffer import call_packed
from schedule.ir.extern_calls import call_pure_extern
from schedule.ir.reduce import comm_reducer
from schedule.operation.extern import extern
from schedule.operation.placeholder import placeholder
from schedule.operation.tensor import Tensor
from schedule.xla import elementwise as ew
from schedule.xla import ops
from schedule.xla.hlo_checks import check_module
from schedule.xla.hlo_lexer import HloParseError
from schedule.xla.hlo_ops import (
    OPS,
    Opaque,
    check_arity,
    check_arrays,
    declared_shape,
    dims_of,
    evaluate,
    names_of,
    shape_text,
    tensors_of,
)
from schedule.xla.hlo_parser import CALLED, Computation, Instruction, ParsedModule, Shape, parse_module

__all__ = ["Computation", "HloModule", "HloParseError", "Instruction", "Shape", "parse", "tensors_of"]


#: Computations calling computations deeper than this are refused.
MAX_CALL_DEPTH = 32


#: Attributes that name computations.


class HloModule:
    """Parsed HLO: tensors by instruction name, and each instruction's operands."""

    def __init__(self, parsed: ParsedModule) -> None:
        self.name = parsed.name
        self.parsed = parsed
        self.tensors: dict[str, Any] = {}
        #: computation name -> instruction name -> its tensor (or tuple of tensors).
        self.computations: dict[str, dict[str, Any]] = {}
        #: constants whose literal is an array of values: name -> the literal's text.
        self.literals: dict[str, str] = {}
        self._operands: dict[int, list[Tensor]] = {}
        self._layouts: dict[int, list[int]] = {}
        self.root: Any = None

    def __getitem__(self, name: str) -> Any:
        try:
            return self.tensors[name]
        except KeyError:
            raise KeyError(f"no instruction named {name!r}") from None

    def layout(self, tensor: Tensor) -> list[int]:
        """The minor-to-major layout of *tensor* (descending by default)."""
        found = self._layouts.get(id(tensor.op))
        return list(found) if found is not None else list(range(len(tensor.shape) - 1, -1, -1))

    def instruction_tensors(self) -> list[Tensor]:
        """Every tensor an instruction of any computation made, each once, that has HLO
        operands (parameters and constants have none): the tensors that have operand maps."""
        out: dict[int, Tensor] = {}
        for env in self.computations.values():
            for value in env.values():
                for t in tensors_of(value):
                    if self.operands(t):
                        out.setdefault(id(t.op), t)
        return list(out.values())

    def operands(self, tensor: Tensor) -> list[Tensor]:
        """The HLO operands of the instruction that produced *tensor* (a tuple operand gives its
        tensors)."""
        return self._operands.get(id(tensor.op), [])


class _Builder:
    def __init__(self, parsed: ParsedModule) -> None:
        self.parsed = parsed
        self.comps = {c.name: c for c in parsed.computations}
        self.module = HloModule(parsed)
        self.active: list[str] = []
        self.fused = {n for c in parsed.computations for i in c.instructions if i.opcode == "fusion"
                      for n in names_of(i.attrs.get("calls", ""))}

    def build(self) -> HloModule:
        check_module(self.parsed)
        entry = self.parsed.entry
        self.module.root = self.instantiate(entry, None, top=True)
        for comp in self.parsed.computations:
            if comp.name not in self.module.computations and comp.name not in self.fused:
                self.instantiate(comp, None)
        return self.module

    def instantiate(self, comp: Computation, args: list[Any] | None, top: bool = False) -> Any:
        if comp.name in self.active:
            raise HloParseError(f"computation '{comp.name}' calls itself (through {' -> '.join(self.active)})",
                                comp.line, comp.column)
        if len(self.active) >= MAX_CALL_DEPTH:
            raise HloParseError(f"computations call each other more than {MAX_CALL_DEPTH} deep", comp.line,
                                comp.column)
        self.active.append(comp.name)
        try:
            env: dict[str, Any] = {}
            for ins in comp.instructions:
                env[ins.name] = self.instruction(ins, env, args)
                if top:
                    self.module.tensors[ins.name] = env[ins.name]
                else:  # instructions of other computations are reachable by name unless the entry has it
                    self.module.tensors.setdefault(ins.name, env[ins.name])
            self.module.computations.setdefault(comp.name, env)
            return env[comp.root.name]
        finally:
            self.active.pop()

    def instruction(self, ins: Instruction, env: dict[str, Any], args: list[Any] | None) -> Any:
        operands = []
        for name, (line, column) in zip(ins.operands, ins.operand_positions):
            if name not in env:
                raise HloParseError(f"'{ins.name}' uses '{name}', which is not defined before it in its "
                                    "computation", line, column)
            operands.append(env[name])
        for key in CALLED:
            for name in names_of(ins.attrs[key]) if key in ins.attrs else ():
                if name not in self.comps:
                    raise HloParseError(f"{key}= of '{ins.name}' names no computation: '{name}'",
                                        *ins.attr_positions.get(key, (ins.line, ins.column)))
        if ins.opcode == "parameter":
            return self.parameter(ins, args)
        try:
            value = self.dispatch(ins, operands)
        except Opaque:
            value = self.opaque(ins, operands)
        except HloParseError:
            raise
        except (TeError, ValueError, TypeError, KeyError, IndexError, ZeroDivisionError, OverflowError) as err:
            raise HloParseError(f"{ins.opcode} '{ins.name}': {err}", ins.line, ins.column) from None
        self.check_shape(ins, value)
        self.register(ins, value, operands)
        return value

    # -- the op of one instruction -------------------------------------------------------------------

    def dispatch(self, ins: Instruction, xs: list[Any]) -> Any:
        op = ins.opcode
        if op in ew.ARITY:
            check_arity(ins, xs, ew.ARITY[op])
            if op == "copy" and isinstance(xs[0], tuple):
                return tuple(ops.copy(t, name=f"{ins.name}.{k}") for k, t in enumerate(tensors_of(xs[0])))
            check_arrays(ins, xs)
            if op in ("convert", "bitcast-convert", "stochastic-convert", "reduce-precision"):
                shape = declared_shape(ins)
                if shape.dims != dims_of(xs[0]):
                    raise Opaque  # a bitcast-convert between widths adds or drops a dimension
            dtype = ins.shape.dtype if ins.shape is not None and not ins.shape.is_tuple else None
            return ops.elementwise(op, *xs, dtype=dtype, attrs=ins.attrs, name=ins.name)
        builder = OPS.get(op)
        if builder is None:
            raise Opaque
        return builder(self, ins, xs)

    def parameter(self, ins: Instruction, args: list[Any] | None) -> Any:
        k = int(ins.literal)
        if args is not None:
            if k >= len(args):
                raise HloParseError(f"parameter({k}) of a computation called with {len(args)} operands",
                                    ins.line, ins.column)
            return args[k]
        shape = declared_shape(ins)
        value = self.placeholders(shape, ins.name)
        self.register(ins, value, [])
        return value

    def placeholders(self, shape: Shape, name: str) -> Any:
        if shape.tuple_shapes is None:
            return placeholder(shape.dims, shape.dtype, name)
        return tuple(self.placeholders(s, f"{name}.{k}") for k, s in enumerate(shape.tuple_shapes))

    def opaque(self, ins: Instruction, xs: list[Any]) -> Any:
        """An op whose reads are unknown: an extern over its operands' tensors (undefined maps),
        which calls the function registered as ``hlo.<opcode>`` if a user runs it."""
        shape = declared_shape(ins)
        leaves = shape.leaves()
        if not leaves:
            return ()
        inputs = list({id(t): t for t in tensors_of(xs)}.values())
        outs = extern([s.dims for s in leaves], inputs,
                      lambda ins_, outs_: call_packed(f"hlo.{ins.opcode}", *ins_, *outs_), name=ins.name,
                      dtype=[s.dtype for s in leaves], tag=ins.opcode)
        outs = outs if isinstance(outs, list) else [outs]
        if shape.tuple_shapes is None:
            return outs[0]
        it = iter(outs)

        def rebuild(s: Shape) -> Any:
            return next(it) if s.tuple_shapes is None else tuple(rebuild(x) for x in s.tuple_shapes)
        return rebuild(shape)

    def check_shape(self, ins: Instruction, value: Any) -> None:
        """A declared shape must be the shape the op gives."""
        if ins.shape is None:
            return

        def same(s: Shape, v: Any) -> bool:
            if s.tuple_shapes is None:
                return isinstance(v, Tensor) and len(v.shape) == len(s.dims) and all(
                    d or n == m for n, m, d in zip(s.dims, dims_of(v), s.dynamic or [False] * len(s.dims)))
            return isinstance(v, tuple) and len(v) == len(s.tuple_shapes) and all(
                same(x, y) for x, y in zip(s.tuple_shapes, v))
        if not same(ins.shape, value):
            raise HloParseError(f"{ins.opcode} '{ins.name}' is declared {ins.shape}, but its operands give "
                                f"{shape_text(value)}", ins.line, ins.column)

    def register(self, ins: Instruction, value: Any, xs: list[Any]) -> None:
        if ins.opcode in ("tuple", "get-tuple-element"):
            return  # no new tensor
        inputs = tensors_of(xs)
        shapes = ins.shape.leaves() if ins.shape is not None else []
        for k, t in enumerate(tensors_of(value)):
            if any(t is x for x in inputs):
                continue  # a fusion whose root is one of its parameters
            self.module._operands[id(t.op)] = inputs  # a fusion's operands replace those of its root
            if k < len(shapes) and shapes[k].layout is not None:
                self.module._layouts[id(t.op)] = shapes[k].layout

    # -- called computations ---------------------------------------------------------------------------

    def called(self, ins: Instruction, key: str) -> Computation:
        names = names_of(ins.attrs.get(key, ""))
        if len(names) != 1:
            raise HloParseError(f"{ins.opcode} '{ins.name}' needs {key}= naming one computation", ins.line,
                                ins.column)
        return self.comps[names[0]]

    def scalar_function(self, ins: Instruction, key: str = "to_apply") -> Callable[..., Any]:
        """A called computation on scalars as a function on expressions; a computation of ops
        the element-wise table lacks is a pure call of ``hlo.<computation>``."""
        comp = self.called(ins, key)

        def fn(*values: Any) -> Any:
            try:
                return evaluate(comp, values)
            except (Opaque, TeError, ValueError, TypeError, KeyError, IndexError):
                outs = comp.root.shape.leaves() if comp.root.shape is not None else []
                dtypes = [s.dtype for s in outs] or [arith.convert(values[0]).dtype]
                calls = [call_pure_extern(d, f"hlo.{comp.name}.{k}" if len(dtypes) > 1 else f"hlo.{comp.name}",
                                             *values) for k, d in enumerate(dtypes)]
                return tuple(calls) if len(calls) > 1 else calls[0]
        return fn

    def reducer(self, ins: Instruction, n: int) -> Any:
        fn = self.scalar_function(ins)
        name = names_of(ins.attrs.get("to_apply", ""))[0]
        if n == 1:
            return comm_reducer(lambda x, y: fn(x, y), lambda t: arith.const(0, t), name=name)
        return comm_reducer(lambda xs, ys: list(fn(*xs, *ys)), lambda *ts: [arith.const(0, t) for t in ts],
                            name=name)


def parse(text: str) -> HloModule:
    """The module in *text* (see the module docstring).

    :raises HloParseError: for text that is not HLO, or HLO that XLA would reject (an unknown
        operand or computation, a declared shape the op does not give ...).
    """
    # A module of thousands of instructions makes hundreds of thousands of objects that all stay
    # alive; the cycle collector would walk them again and again (15% of the time) for nothing.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _Builder(parse_module(text)).build()
    finally:
        if enabled:
            gc.enable()

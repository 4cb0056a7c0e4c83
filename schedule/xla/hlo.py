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

import math
import re
from collections.abc import Callable
from typing import Any

from schedule.base.errors import TeError
from schedule.ir import arith
from schedule.ir.buffer import call_packed
from schedule.ir.extern_calls import call_pure_extern
from schedule.ir.reduce import comm_reducer
from schedule.operation.compute import compute
from schedule.operation.extern import extern
from schedule.operation.placeholder import placeholder
from schedule.operation.tensor import Tensor
from schedule.xla import elementwise as ew
from schedule.xla import ops
from schedule.xla.hlo_checks import check_module
from schedule.xla.hlo_lexer import HloParseError
from schedule.xla.hlo_parser import Computation, Instruction, ParsedModule, Shape, parse_module

__all__ = ["Computation", "HloModule", "HloParseError", "Instruction", "Shape", "parse", "tensors_of"]

#: Computations calling computations deeper than this are refused.
MAX_CALL_DEPTH = 32
#: Attributes that name computations.
_CALLED = ("to_apply", "calls", "condition", "body", "true_computation", "false_computation",
           "branch_computations", "called_computations")


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


class _Opaque(Exception):
    """A known op in a form the library does not build (a general gather ...): made opaque."""


def tensors_of(value: Any) -> list[Tensor]:
    """The tensors of an instruction's value (a tensor, or a tuple nested at most as deep as
    shapes may be), in order."""
    if isinstance(value, Tensor):
        return [value]
    return [t for v in value for t in tensors_of(v)]


def _dims(t: Tensor) -> list[int]:
    return [int(arith.value_of(e)) for e in t.shape]  # type: ignore[arg-type]


def _ints(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", text)]


def _names(text: str) -> list[str]:
    return [n.strip().lstrip("%") for n in text.strip().strip("{}").split(",") if n.strip()]


class _Builder:
    def __init__(self, parsed: ParsedModule) -> None:
        self.parsed = parsed
        self.comps = {c.name: c for c in parsed.computations}
        self.module = HloModule(parsed)
        self.active: list[str] = []
        self.fused = {n for c in parsed.computations for i in c.instructions if i.opcode == "fusion"
                      for n in _names(i.attrs.get("calls", ""))}

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
        for key in _CALLED:
            for name in _names(ins.attrs[key]) if key in ins.attrs else ():
                if name not in self.comps:
                    raise HloParseError(f"{key}= of '{ins.name}' names no computation: '{name}'",
                                        *ins.attr_positions.get(key, (ins.line, ins.column)))
        if ins.opcode == "parameter":
            return self.parameter(ins, args)
        try:
            value = self.dispatch(ins, operands)
        except _Opaque:
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
            _arity(ins, xs, ew.ARITY[op])
            if op == "copy" and isinstance(xs[0], tuple):
                return tuple(ops.copy(t, name=f"{ins.name}.{k}") for k, t in enumerate(tensors_of(xs[0])))
            _arrays(ins, xs)
            if op in ("convert", "bitcast-convert", "stochastic-convert", "reduce-precision"):
                shape = _declared(ins)
                if shape.dims != _dims(xs[0]):
                    raise _Opaque  # a bitcast-convert between widths adds or drops a dimension
            dtype = ins.shape.dtype if ins.shape is not None and not ins.shape.is_tuple else None
            return ops.elementwise(op, *xs, dtype=dtype, attrs=ins.attrs, name=ins.name)
        builder = _OPS.get(op)
        if builder is None:
            raise _Opaque
        return builder(self, ins, xs)

    def parameter(self, ins: Instruction, args: list[Any] | None) -> Any:
        k = int(ins.literal)
        if args is not None:
            if k >= len(args):
                raise HloParseError(f"parameter({k}) of a computation called with {len(args)} operands",
                                    ins.line, ins.column)
            return args[k]
        shape = _declared(ins)
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
        shape = _declared(ins)
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
                    d or n == m for n, m, d in zip(s.dims, _dims(v), s.dynamic or [False] * len(s.dims)))
            return isinstance(v, tuple) and len(v) == len(s.tuple_shapes) and all(
                same(x, y) for x, y in zip(s.tuple_shapes, v))
        if not same(ins.shape, value):
            raise HloParseError(f"{ins.opcode} '{ins.name}' is declared {ins.shape}, but its operands give "
                                f"{_shape_text(value)}", ins.line, ins.column)

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
        names = _names(ins.attrs.get(key, ""))
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
                return _evaluate(comp, values)
            except (_Opaque, TeError, ValueError, TypeError, KeyError, IndexError):
                outs = comp.root.shape.leaves() if comp.root.shape is not None else []
                dtypes = [s.dtype for s in outs] or [arith.convert(values[0]).dtype]
                calls = [call_pure_extern(d, f"hlo.{comp.name}.{k}" if len(dtypes) > 1 else f"hlo.{comp.name}",
                                             *values) for k, d in enumerate(dtypes)]
                return tuple(calls) if len(calls) > 1 else calls[0]
        return fn

    def reducer(self, ins: Instruction, n: int) -> Any:
        fn = self.scalar_function(ins)
        name = _names(ins.attrs.get("to_apply", ""))[0]
        if n == 1:
            return comm_reducer(lambda x, y: fn(x, y), lambda t: arith.const(0, t), name=name)
        return comm_reducer(lambda xs, ys: list(fn(*xs, *ys)), lambda *ts: [arith.const(0, t) for t in ts],
                            name=name)


def _evaluate(comp: Computation, values: tuple) -> Any:
    env: dict[str, Any] = {}
    for ins in comp.instructions:
        args = [env[o] for o in ins.operands]
        if ins.opcode == "parameter":
            env[ins.name] = values[int(ins.literal)]
        elif ins.opcode == "tuple":
            env[ins.name] = tuple(args)
        elif ins.opcode == "get-tuple-element":
            env[ins.name] = args[0][int(ins.attrs["index"])]
        elif ins.opcode == "constant":
            value = _literal_value(ins.literal, ins.shape.dtype if ins.shape else "float32", 1)
            if value is None:
                raise _Opaque
            env[ins.name] = arith.const(value, ins.shape.dtype if ins.shape else None)
        elif ins.opcode in ew.ARITY and len(args) == ew.ARITY[ins.opcode]:
            dtype = ins.shape.dtype if ins.shape is not None and not ins.shape.is_tuple else None
            dtype = dtype or ("bool" if ins.opcode == "compare" else arith.convert(args[-1]).dtype)
            env[ins.name] = ew.element(ins.opcode, dtype, args, ins.attrs)
        else:
            raise _Opaque
    return env[comp.root.name]


# -- helpers of the op builders ------------------------------------------------------------------------

def _arity(ins: Instruction, xs: list, n: int) -> None:
    if len(xs) != n:
        raise HloParseError(f"{ins.opcode} '{ins.name}' takes {n} operand{'s' if n != 1 else ''}, not {len(xs)}",
                            ins.line, ins.column)


def _arrays(ins: Instruction, xs: list) -> None:
    for k, x in enumerate(xs):
        if not isinstance(x, Tensor):
            raise HloParseError(f"operand {k} of {ins.opcode} '{ins.name}' is a tuple; this op takes arrays",
                                *ins.operand_positions[k])


def _declared(ins: Instruction) -> Shape:
    if ins.shape is None:
        raise HloParseError(f"{ins.opcode} '{ins.name}' needs its shape written (it cannot be inferred)",
                            ins.line, ins.column)
    return ins.shape


def _array_shape(ins: Instruction) -> Shape:
    shape = _declared(ins)
    if shape.is_tuple:
        raise _Opaque
    return shape


def _attr(ins: Instruction, key: str) -> str:
    if key not in ins.attrs:
        raise HloParseError(f"{ins.opcode} '{ins.name}' needs the attribute {key}=", ins.line, ins.column)
    return ins.attrs[key]


def _shape_text(value: Any) -> str:
    if isinstance(value, Tensor):
        return f"[{','.join(str(n) for n in _dims(value))}]"
    return "(" + ", ".join(_shape_text(v) for v in value) + ")"


def _literal_value(text: str, dtype: str, count: int) -> Any:
    """The one value of a scalar or splat literal (every element the same), or None."""
    if "(" in text or ":" in text:
        return None
    values = re.findall(r"[^\s{},]+", text)
    if not values or len(set(values)) != 1 or len(values) not in (1, count):
        return None
    v = values[0]
    try:
        if v in ("true", "false"):
            return v == "true"
        if dtype.startswith("float"):
            return float(v.split("(")[0])
        if dtype == "bool":
            return bool(int(v))
        return int(v, 0) if not re.search(r"[.eE]", v) or v.startswith("0x") else int(float(v))
    except ValueError:
        return None


def _window(ins: Instruction, rank: int) -> dict[str, list]:
    out: dict[str, list] = {"size": [1] * rank, "stride": [1] * rank, "pad": [(0, 0)] * rank,
                            "lhs_dilate": [1] * rank, "rhs_dilate": [1] * rank, "rhs_reversal": [0] * rank}
    for item in ins.attrs.get("window", "{}").strip().strip("{}").split():
        key, _, value = item.partition("=")
        if key == "pad":
            out["pad"] = [tuple(int(x) for x in p.split("_")) for p in value.split("x")]
        else:
            out[key] = [int(x) for x in value.split("x")]
    for key, value in out.items():
        if len(value) != rank:
            raise HloParseError(f"{ins.opcode} '{ins.name}': window {key} has {len(value)} entries for "
                                f"{rank} dimensions", ins.line, ins.column)
    return out


# -- the op builders ----------------------------------------------------------------------------------------

def _constant(b: _Builder, ins: Instruction, xs: list) -> Any:
    shape = _declared(ins)
    value = None if shape.is_tuple else _literal_value(ins.literal, shape.dtype, math.prod(shape.dims))
    if value is None:  # an array of values: a tensor the analysis cannot look into
        b.module.literals[ins.name] = ins.literal
        return b.placeholders(shape, ins.name)
    return ops.constant(value, shape.dims, shape.dtype, name=ins.name)


def _reduce(b: _Builder, ins: Instruction, xs: list) -> Any:
    if not xs or len(xs) % 2:
        raise HloParseError(f"reduce '{ins.name}' takes inputs and as many init values, not {len(xs)} operands",
                            ins.line, ins.column)
    _arrays(ins, xs)
    n = len(xs) // 2
    out = ops.reduce(xs[:n], xs[n:], _ints(_attr(ins, "dimensions")), b.reducer(ins, n), name=ins.name)
    return tuple(out) if isinstance(out, list) else out


def _reduce_window(b: _Builder, ins: Instruction, xs: list) -> Any:
    if not xs or len(xs) % 2:
        raise HloParseError(f"reduce-window '{ins.name}' takes inputs and as many init values, not {len(xs)} "
                            "operands", ins.line, ins.column)
    _arrays(ins, xs)
    n = len(xs) // 2
    w = _window(ins, len(xs[0].shape))
    out = ops.reduce_window(xs[:n] if n > 1 else xs[0], xs[n:] if n > 1 else xs[1], w["size"], w["stride"],
                            w["pad"], w["rhs_dilate"], b.reducer(ins, n), base_dilation=w["lhs_dilate"],
                            name=ins.name)
    return tuple(out) if isinstance(out, list) else out


def _slice(b: _Builder, ins: Instruction, xs: list) -> Any:
    parts = re.findall(r"\[(-?\d+):(-?\d+)(?::(-?\d+))?\]", _attr(ins, "slice"))
    return ops.slice(xs[0], [int(p[0]) for p in parts], [int(p[1]) for p in parts],
                     [int(p[2]) if p[2] else 1 for p in parts], name=ins.name)


def _pad(b: _Builder, ins: Instruction, xs: list) -> Any:
    config = []
    for p in _attr(ins, "padding").strip().split("x"):
        v = [int(x) for x in re.findall(r"-?\d+", p)]
        if len(v) not in (2, 3):
            raise ValueError(f"padding {p!r} is not low_high or low_high_interior")
        config.append((v[0], v[1], v[2] if len(v) > 2 else 0))
    return ops.pad(xs[0], xs[1], config, name=ins.name)


def _offsets(ins: Instruction, x: Tensor, offsets: list[Tensor]) -> list[Tensor]:
    """The scalar start offsets; the older form gives them as one vector, read element-wise."""
    if len(offsets) == 1 and len(offsets[0].shape) == 1 and len(x.shape) != 1:
        (vector,) = offsets

        def element(k: int) -> Tensor:
            return compute((), lambda: vector[k], name=f"{ins.name}.offset{k}")
        return [element(k) for k in range(_dims(vector)[0])]
    return offsets


def _dot_dims(ins: Instruction) -> list[list[int]]:
    return [_ints(ins.attrs.get(k, "")) for k in ("lhs_batch_dims", "rhs_batch_dims", "lhs_contracting_dims",
                                                  "rhs_contracting_dims")]


def _bitcast(b: _Builder, ins: Instruction, xs: list) -> Any:
    """A bitcast keeps the physical bytes: out index -> physical position -> input index."""
    x = xs[0]
    src = _dims(x)
    shape = _array_shape(ins)
    dst = shape.dims
    if math.prod(src) != math.prod(dst):
        raise _Opaque  # a bitcast between element widths
    src_layout = b.module._layouts.get(id(x.op)) or list(range(len(src) - 1, -1, -1))
    dst_layout = shape.layout or list(range(len(dst) - 1, -1, -1))
    src_major, dst_major = list(reversed(src_layout)), list(reversed(dst_layout))
    if src_major == sorted(src_major) and dst_major == sorted(dst_major):
        return ops.reshape(x, dst, name=ins.name)

    def body(*i: Any) -> Any:
        physical = ops.reshape_indices([src[d] for d in src_major], [dst[d] for d in dst_major],
                                       [i[d] for d in dst_major])
        index: list[Any] = [None] * len(src)
        for k, d in enumerate(src_major):
            index[d] = physical[k]
        return x[tuple(index)] if index else x[()]
    out = compute(dst, body, name=ins.name, tag="bitcast")
    out.op.attrs["bitcast_orders"] = (tuple(src_major), tuple(dst_major))  # for the inverse maps, as ints
    return out


def _gather(b: _Builder, ins: Instruction, xs: list) -> Any:
    a = ins.attrs
    operand, indices = xs
    rank = len(operand.shape)
    if (_ints(a.get("collapsed_slice_dims", "")) or _ints(a.get("operand_batching_dims", ""))
            or _ints(a.get("index_vector_dim", "1")) != [1] or len(indices.shape) != 2
            or _ints(a.get("offset_dims", "")) != list(range(1, rank + 1))):
        raise _Opaque  # only XLA's simplified gather is built
    return ops.gather(operand, indices, _ints(_attr(ins, "slice_sizes")), _ints(_attr(ins, "start_index_map")),
                      name=ins.name)


def _convolution(b: _Builder, ins: Instruction, xs: list) -> Any:
    w = _window(ins, len(xs[0].shape) - 2)
    return ops.convolution(xs[0], xs[1], _attr(ins, "dim_labels").strip(), w["size"], w["stride"], w["pad"],
                           w["lhs_dilate"], w["rhs_dilate"], int(ins.attrs.get("feature_group_count", "1")),
                           int(ins.attrs.get("batch_group_count", "1")), name=ins.name,
                           rhs_reversal=w["rhs_reversal"])


def _fusion(b: _Builder, ins: Instruction, xs: list) -> Any:
    root = b.instantiate(b.called(ins, "calls"), xs)
    for t in tensors_of(root):
        if isinstance(getattr(t.op, "attrs", None), dict) and not any(t is x for x in tensors_of(xs)):
            t.op.attrs["fusion"] = ins.name  # analyses treat a fusion's root as XLA does
    return root


def _map(b: _Builder, ins: Instruction, xs: list) -> Any:
    fn = b.scalar_function(ins)
    shape = _dims(xs[0])
    return compute(shape, lambda *i: fn(*(x[tuple(i)] if i else x[()] for x in xs)), name=ins.name, tag="map")


def _get_tuple_element(b: _Builder, ins: Instruction, xs: list) -> Any:
    _arity(ins, xs, 1)
    (x,) = xs
    if not isinstance(x, tuple):
        raise HloParseError(f"get-tuple-element '{ins.name}' reads '{ins.operands[0]}', which is not a tuple",
                            ins.line, ins.column)
    k = int(_attr(ins, "index"))
    if not 0 <= k < len(x):
        raise HloParseError(f"get-tuple-element '{ins.name}': index {k} of a tuple of {len(x)}", ins.line,
                            ins.column)
    return x[k]


def _all_gather(b: _Builder, ins: Instruction, xs: list) -> Any:
    """XLA's map of an all-gather on one device: the gathered dimension wraps the operand."""
    shape = _array_shape(ins)
    if len(xs) != 1 or not isinstance(xs[0], Tensor):
        raise _Opaque
    x, (dim,) = xs[0], _ints(_attr(ins, "dimensions"))
    n = _dims(x)[dim]
    return compute(shape.dims, lambda *i: x[tuple(arith.floormod(v, n) if k == dim else v for k, v in enumerate(i))],
                   name=ins.name, tag="all-gather")


def _unary_copy(b: _Builder, ins: Instruction, xs: list) -> Any:
    """all-reduce-start/-done of one array: element-wise on one device, as XLA maps them."""
    if len(xs) != 1 or not isinstance(xs[0], Tensor) or _declared(ins).is_tuple:
        raise _Opaque
    x = xs[0]
    return compute(_dims(x), lambda *i: x[tuple(i)] if i else x[()], name=ins.name, tag=ins.opcode)


_OpBuilder = Callable[[_Builder, Instruction, list], Any]


def _checked(n: int, builder: _OpBuilder) -> _OpBuilder:
    """*builder* for an op of *n* array operands (-1: at least one)."""
    def build(b: _Builder, ins: Instruction, xs: list) -> Any:
        if n >= 0:
            _arity(ins, xs, n)
        elif not xs:
            raise HloParseError(f"{ins.opcode} '{ins.name}' needs operands", ins.line, ins.column)
        _arrays(ins, xs)
        return builder(b, ins, xs)
    return build


_OPS: dict[str, _OpBuilder] = {
    "constant": _constant,
    "iota": lambda b, ins, xs: ops.iota(_array_shape(ins).dims, int(ins.attrs.get("iota_dimension", "0")),
                                        _array_shape(ins).dtype, name=ins.name),
    "broadcast": _checked(1, lambda b, ins, xs: ops.broadcast(xs[0], _array_shape(ins).dims,
                                                              _ints(ins.attrs.get("dimensions", "")),
                                                              name=ins.name)),
    "transpose": _checked(1, lambda b, ins, xs: ops.transpose(xs[0], _ints(_attr(ins, "dimensions")),
                                                              name=ins.name)),
    "reverse": _checked(1, lambda b, ins, xs: ops.reverse(xs[0], _ints(_attr(ins, "dimensions")), name=ins.name)),
    "reshape": _checked(1, lambda b, ins, xs: ops.reshape(xs[0], _array_shape(ins).dims, name=ins.name)),
    "slice": _checked(1, _slice),
    "concatenate": _checked(-1, lambda b, ins, xs: ops.concatenate(xs, _ints(_attr(ins, "dimensions"))[0],
                                                                   name=ins.name)),
    "pad": _checked(2, _pad),
    "reduce": _reduce,
    "reduce-window": _reduce_window,
    "dot": _checked(2, lambda b, ins, xs: ops.dot(xs[0], xs[1], *_dot_dims(ins), name=ins.name)),
    "scaled-dot": _checked(4, lambda b, ins, xs: ops.scaled_dot(*xs, *_dot_dims(ins), name=ins.name)),
    "dynamic-slice": _checked(-1, lambda b, ins, xs: ops.dynamic_slice(
        xs[0], _offsets(ins, xs[0], xs[1:]), _ints(_attr(ins, "dynamic_slice_sizes")), name=ins.name)),
    "dynamic-update-slice": _checked(-1, lambda b, ins, xs: ops.dynamic_update_slice(
        xs[0], xs[1], _offsets(ins, xs[0], xs[2:]), name=ins.name)),
    "fusion": _fusion,
    "bitcast": _checked(1, _bitcast),
    "gather": _checked(2, _gather),
    "convolution": _checked(2, _convolution),
    "map": _checked(-1, _map),
    "tuple": lambda b, ins, xs: tuple(xs),
    "get-tuple-element": _get_tuple_element,
    "all-gather": _all_gather,
    "all-reduce-start": _unary_copy,
    "all-reduce-done": _unary_copy,
}


def parse(text: str) -> HloModule:
    """The module in *text* (see the module docstring).

    :raises HloParseError: for text that is not HLO, or HLO that XLA would reject (an unknown
        operand or computation, a declared shape the op does not give ...).
    """
    return _Builder(parse_module(text)).build()

"""How each HLO opcode becomes tensors of the op library, for :mod:`schedule.xla.hlo`'s builder:
one builder per opcode that needs more than a call (constants, reductions, windows, slices,
gathers, fusions ...), their checks, and the table ``OPS`` the builder looks opcodes up in."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from schedule.ir import arith
from schedule.operation.compute import compute
from schedule.operation.tensor import Tensor
from schedule.xla import elementwise as ew
from schedule.xla import ops
from schedule.xla.hlo_lexer import HloParseError
from schedule.xla.hlo_parser import Computation, Instruction, Shape

if TYPE_CHECKING:
    from schedule.xla.hlo import _Builder


def tensors_of(value: Any) -> list[Tensor]:
    """The tensors of an instruction's value (a tensor, or a tuple nested at most as deep as
    shapes may be), in order."""
    if isinstance(value, Tensor):
        return [value]
    return [t for v in value for t in tensors_of(v)]


class Opaque(Exception):
    """A known op in a form the library does not build (a general gather ...): made opaque."""


def dims_of(t: Tensor) -> list[int]:
    return [int(arith.value_of(e)) for e in t.shape]  # type: ignore[arg-type]


def _ints(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", text)]


def names_of(text: str) -> list[str]:
    return [n.strip().lstrip("%") for n in text.strip().strip("{}").split(",") if n.strip()]


def evaluate(comp: Computation, values: tuple) -> Any:
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
            value = literal_value(ins.literal, ins.shape.dtype if ins.shape else "float32", 1)
            if value is None:
                raise Opaque
            env[ins.name] = arith.const(value, ins.shape.dtype if ins.shape else None)
        elif ins.opcode in ew.ARITY and len(args) == ew.ARITY[ins.opcode]:
            dtype = ins.shape.dtype if ins.shape is not None and not ins.shape.is_tuple else None
            dtype = dtype or ("bool" if ins.opcode == "compare" else arith.convert(args[-1]).dtype)
            env[ins.name] = ew.element(ins.opcode, dtype, args, ins.attrs)
        else:
            raise Opaque
    return env[comp.root.name]


def check_arity(ins: Instruction, xs: list, n: int) -> None:
    if len(xs) != n:
        raise HloParseError(f"{ins.opcode} '{ins.name}' takes {n} operand{'s' if n != 1 else ''}, not {len(xs)}",
                            ins.line, ins.column)


def check_arrays(ins: Instruction, xs: list) -> None:
    for k, x in enumerate(xs):
        if not isinstance(x, Tensor):
            raise HloParseError(f"operand {k} of {ins.opcode} '{ins.name}' is a tuple; this op takes arrays",
                                *ins.operand_positions[k])


def declared_shape(ins: Instruction) -> Shape:
    if ins.shape is None:
        raise HloParseError(f"{ins.opcode} '{ins.name}' needs its shape written (it cannot be inferred)",
                            ins.line, ins.column)
    return ins.shape


def _array_shape(ins: Instruction) -> Shape:
    shape = declared_shape(ins)
    if shape.is_tuple:
        raise Opaque
    return shape


def _attr(ins: Instruction, key: str) -> str:
    if key not in ins.attrs:
        raise HloParseError(f"{ins.opcode} '{ins.name}' needs the attribute {key}=", ins.line, ins.column)
    return ins.attrs[key]


def shape_text(value: Any) -> str:
    if isinstance(value, Tensor):
        return f"[{','.join(str(n) for n in dims_of(value))}]"
    return "(" + ", ".join(shape_text(v) for v in value) + ")"


def literal_value(text: str, dtype: str, count: int) -> Any:
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


def _constant(b: _Builder, ins: Instruction, xs: list) -> Any:
    shape = declared_shape(ins)
    value = None if shape.is_tuple else literal_value(ins.literal, shape.dtype, math.prod(shape.dims))
    if value is None:  # an array of values: a tensor the analysis cannot look into
        b.module.literals[ins.name] = ins.literal
        return b.placeholders(shape, ins.name)
    return ops.constant(value, shape.dims, shape.dtype, name=ins.name)


def _reduce(b: _Builder, ins: Instruction, xs: list) -> Any:
    if not xs or len(xs) % 2:
        raise HloParseError(f"reduce '{ins.name}' takes inputs and as many init values, not {len(xs)} operands",
                            ins.line, ins.column)
    check_arrays(ins, xs)
    n = len(xs) // 2
    out = ops.reduce(xs[:n], xs[n:], _ints(_attr(ins, "dimensions")), b.reducer(ins, n), name=ins.name)
    return tuple(out) if isinstance(out, list) else out


def _reduce_window(b: _Builder, ins: Instruction, xs: list) -> Any:
    if not xs or len(xs) % 2:
        raise HloParseError(f"reduce-window '{ins.name}' takes inputs and as many init values, not {len(xs)} "
                            "operands", ins.line, ins.column)
    check_arrays(ins, xs)
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
        return [element(k) for k in range(dims_of(vector)[0])]
    return offsets


def _dot_dims(ins: Instruction) -> list[list[int]]:
    return [_ints(ins.attrs.get(k, "")) for k in ("lhs_batch_dims", "rhs_batch_dims", "lhs_contracting_dims",
                                                  "rhs_contracting_dims")]


def _bitcast(b: _Builder, ins: Instruction, xs: list) -> Any:
    """A bitcast keeps the physical bytes: out index -> physical position -> input index."""
    x = xs[0]
    src = dims_of(x)
    shape = _array_shape(ins)
    dst = shape.dims
    if math.prod(src) != math.prod(dst):
        raise Opaque  # a bitcast between element widths
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
        raise Opaque  # only XLA's simplified gather is built
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
    shape = dims_of(xs[0])
    return compute(shape, lambda *i: fn(*(x[tuple(i)] if i else x[()] for x in xs)), name=ins.name, tag="map")


def _get_tuple_element(b: _Builder, ins: Instruction, xs: list) -> Any:
    check_arity(ins, xs, 1)
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
        raise Opaque
    x, (dim,) = xs[0], _ints(_attr(ins, "dimensions"))
    n = dims_of(x)[dim]
    return compute(shape.dims, lambda *i: x[tuple(arith.floormod(v, n) if k == dim else v for k, v in enumerate(i))],
                   name=ins.name, tag="all-gather")


def _unary_copy(b: _Builder, ins: Instruction, xs: list) -> Any:
    """all-reduce-start/-done of one array: element-wise on one device, as XLA maps them."""
    if len(xs) != 1 or not isinstance(xs[0], Tensor) or declared_shape(ins).is_tuple:
        raise Opaque
    x = xs[0]
    return compute(dims_of(x), lambda *i: x[tuple(i)] if i else x[()], name=ins.name, tag=ins.opcode)


_OpBuilder = Callable[["_Builder", Instruction, list], Any]


def _checked(n: int, builder: _OpBuilder) -> _OpBuilder:
    """*builder* for an op of *n* array operands (-1: at least one)."""
    def build(b: _Builder, ins: Instruction, xs: list) -> Any:
        if n >= 0:
            check_arity(ins, xs, n)
        elif not xs:
            raise HloParseError(f"{ins.opcode} '{ins.name}' needs operands", ins.line, ins.column)
        check_arrays(ins, xs)
        return builder(b, ins, xs)
    return build


OPS: dict[str, _OpBuilder] = {
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

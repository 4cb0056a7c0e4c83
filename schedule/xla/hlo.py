"""HLO text (as XLA dumps it) into tensors of the op library.

``mod = hlo.parse(text)``: ``mod.root`` is the entry computation's root (a tuple root gives a
tuple of tensors), ``mod["name"]`` an instruction's tensor, ``mod.operands(t)`` the HLO
operands of an instruction (a fusion's own operands). Fusions are built from their operands
(the called computation's parameters are those tensors), so analyses see through them.
Anything not supported raises :class:`HloParseError` naming the line and the token.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from schedule import arith
from schedule.errors import TeError
from schedule.reduce import comm_reducer
from schedule.tensor import Tensor, placeholder
from schedule.xla import ops
from schedule.xla.hlo_lexer import HloParseError

_DTYPES = {"f16": "float16", "f32": "float32", "f64": "float64", "bf16": "float32", "s8": "int8",
           "s16": "int16", "s32": "int32", "s64": "int64", "u8": "uint8", "u32": "uint32",
           "u64": "uint64", "pred": "bool"}


@dataclass
class Shape:
    dtype: str
    dims: list[int]
    layout: list[int] | None = None
    tuple_shapes: list[Shape] | None = None


@dataclass
class Instruction:
    name: str
    shape: Shape
    opcode: str
    operands: list[str]
    attrs: dict[str, str]
    line: int
    is_root: bool
    literal: str = ""


@dataclass
class Computation:
    name: str
    instructions: list[Instruction] = field(default_factory=list)
    is_entry: bool = False

    @property
    def root(self) -> Instruction:
        roots = [i for i in self.instructions if i.is_root]
        return roots[0] if roots else self.instructions[-1]


class HloModule:
    """Parsed HLO: tensors by instruction name, and each instruction's operands."""

    def __init__(self) -> None:
        self.tensors: dict[str, Any] = {}
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

    def operands(self, tensor: Tensor) -> list[Tensor]:
        """The HLO operands of the instruction that produced *tensor*."""
        return self._operands.get(id(tensor.op), [])


# -- text -> structure -----------------------------------------------------------------------------

_COMP_HEAD = re.compile(r"^\s*(ENTRY\s+)?%?([\w.\-]+)\s*(\(.*\)\s*->\s*.*?)?\s*\{\s*$")
_INSTR_HEAD = re.compile(r"^\s*(ROOT\s+)?%?([\w.\-]+)\s*=\s*((?:\(|\w+\[).*)$")


def _split_top(text: str, sep: str = ",") -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def _parse_shape(text: str, line: int) -> tuple[Shape, str]:
    """A shape at the start of *text*, and the rest of the text."""
    text = text.strip()
    if text.startswith("("):
        depth = 0
        for k, ch in enumerate(text):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0:
                inner = [_parse_shape(p, line)[0] for p in _split_top(text[1:k])]
                return Shape("tuple", [], None, inner), text[k + 1:]
    m = re.match(r"(\w+)\[([^\]]*)\](\s*\{[^}]*\})?", text)
    if m is None or m.group(1) not in _DTYPES:
        token = text.split()[0] if text.split() else text
        raise HloParseError(f"line {line}: unsupported shape {token!r}")
    dims = [int(d) for d in m.group(2).replace(" ", "").split(",") if d]
    layout = None
    if m.group(3):
        body = m.group(3).strip()[1:-1].split(":")[0]
        layout = [int(d) for d in body.replace(" ", "").split(",") if d]
    return Shape(_DTYPES[m.group(1)], dims, layout), text[m.end():]


def _parse_instruction(text: str, line: int, is_root: bool, name: str) -> Instruction:
    shape, rest = _parse_shape(text, line)
    m = re.match(r"\s*([\w\-]+)\(", rest)
    if m is None:
        raise HloParseError(f"line {line}: expected an opcode after the shape in {rest.strip()[:40]!r}")
    opcode = m.group(1)
    depth, k = 0, m.end() - 1
    for k in range(m.end() - 1, len(rest)):
        depth += rest[k] == "("
        depth -= rest[k] == ")"
        if depth == 0:
            break
    args = rest[m.end():k]
    attrs: dict[str, str] = {}
    for part in _split_top(rest[k + 1:]):
        if "=" in part:
            key, value = part.split("=", 1)
            attrs[key.strip()] = value.strip()
    literal = ""
    operands = []
    if opcode in ("constant", "parameter", "iota"):
        literal = args.strip()
    else:
        for a in _split_top(args):
            token = a.split()[-1] if a.split() else a
            operands.append(token.lstrip("%"))
    return Instruction(name, shape, opcode, operands, attrs, line, is_root, literal)


def _parse_computations(text: str) -> list[Computation]:
    comps: list[Computation] = []
    current: Computation | None = None
    pending: tuple[int, bool, str, list[str]] | None = None

    def flush() -> None:
        nonlocal pending
        if pending is not None and current is not None:
            line, is_root, name, parts = pending
            current.instructions.append(_parse_instruction(" ".join(parts), line, is_root, name))
        pending = None

    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.split("//")[0].rstrip() if "//" in raw and '"' not in raw else raw.rstrip()
        if not stripped.strip() or stripped.strip().startswith("HloModule"):
            continue
        if current is None:
            m = _COMP_HEAD.match(stripped)
            if m is None:
                raise HloParseError(f"line {number}: expected a computation, found {stripped.strip()[:40]!r}")
            current = Computation(m.group(2), is_entry=bool(m.group(1)))
            continue
        if stripped.strip() == "}":
            flush()
            comps.append(current)
            current = None
            continue
        m = _INSTR_HEAD.match(stripped)
        if m is not None:
            flush()
            pending = (number, bool(m.group(1)), m.group(2), [m.group(3)])
        elif pending is not None:
            pending[3].append(stripped.strip())
        else:
            raise HloParseError(f"line {number}: unexpected {stripped.strip()[:40]!r}")
    if current is not None:
        raise HloParseError(f"computation {current.name!r} is not closed with '}}'")
    return comps


# -- structure -> tensors ----------------------------------------------------------------------------

def _ints(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", text)]


class _Builder:
    def __init__(self, comps: list[Computation]) -> None:
        self.comps = {c.name: c for c in comps}
        self.module = HloModule()
        self.layouts: dict[int, list[int]] = {}

    def build_entry(self) -> HloModule:
        entries = [c for c in self.comps.values() if c.is_entry] or list(self.comps.values())[-1:]
        if not entries:
            raise HloParseError("no computation in the text")
        root = self.instantiate(entries[0], None, top=True)
        self.module.root = root
        self.module._layouts = self.layouts
        return self.module

    def instantiate(self, comp: Computation, args: list[Any] | None, top: bool = False) -> Any:
        env: dict[str, Any] = {}
        for ins in comp.instructions:
            env[ins.name] = self.instruction(ins, env, args, top)
            if top:
                self.module.tensors[ins.name] = env[ins.name]
            else:  # instructions inside fusions are reachable by name unless the entry reuses it
                self.module.tensors.setdefault(ins.name, env[ins.name])
        return env[comp.root.name]

    def instruction(self, ins: Instruction, env: dict[str, Any], args: list[Any] | None, top: bool) -> Any:
        def operand(k: int) -> Any:
            try:
                return env[ins.operands[k]]
            except (KeyError, IndexError):
                raise HloParseError(f"line {ins.line}: unknown operand "
                                    f"{ins.operands[k] if k < len(ins.operands) else k!r}") from None
        operands = [operand(k) for k in range(len(ins.operands))]
        if ins.opcode == "parameter":
            k = int(ins.literal)
            if args is not None:
                return args[k]
            t = placeholder(ins.shape.dims, ins.shape.dtype, ins.name)
            if ins.shape.layout is not None:
                self.layouts[id(t.op)] = ins.shape.layout
            return t
        builder = _OPS.get(ins.opcode)
        if builder is None:
            raise HloParseError(f"line {ins.line}: unsupported op {ins.opcode!r}")
        try:
            out = builder(self, ins, operands)
        except HloParseError:
            raise
        except (TeError, ValueError, TypeError, KeyError) as err:
            raise HloParseError(f"line {ins.line}: {ins.opcode} {ins.name!r}: {err}") from None
        produced = out if isinstance(out, tuple) and ins.opcode != "tuple" else (out,)
        for t in produced:
            if isinstance(t, Tensor):  # a fusion's operands replace those of its root
                self.module._operands[id(t.op)] = [o for o in operands if isinstance(o, Tensor)]
                if ins.shape.layout is not None:
                    self.layouts[id(t.op)] = ins.shape.layout
        return out

    def scalar_function(self, name: str, line: int) -> Callable[..., Any]:
        """A called scalar computation as a function on expressions."""
        comp = self.comps.get(name.lstrip("%"))
        if comp is None:
            raise HloParseError(f"line {line}: unknown computation {name!r}")

        def fn(*values: Any) -> Any:
            env: dict[str, Any] = {}
            for ins in comp.instructions:
                if ins.opcode == "parameter":
                    env[ins.name] = values[int(ins.literal)]
                    continue
                args = [env[o] for o in ins.operands]
                scalar = _SCALAR.get(ins.opcode)
                if ins.opcode == "tuple":
                    env[ins.name] = tuple(args)
                elif ins.opcode == "constant":
                    env[ins.name] = _constant_value(ins)
                elif ins.opcode == "compare":
                    env[ins.name] = _compare(ins, args[0], args[1])
                elif scalar is not None:
                    env[ins.name] = scalar(*args)
                else:
                    raise HloParseError(f"line {ins.line}: unsupported op {ins.opcode!r} in {name!r}")
            return env[comp.root.name]
        return fn


def _constant_value(ins: Instruction) -> Any:
    text = ins.literal.strip()
    if text in ("inf", "-inf", "nan"):
        return arith.const(float(text), ins.shape.dtype)
    if text in ("true", "false"):
        return arith.const(text == "true", "bool")
    try:
        value = float(text) if ins.shape.dtype.startswith("float") else int(text)
    except ValueError:
        raise HloParseError(f"line {ins.line}: unsupported constant {text!r}") from None
    return arith.const(value, ins.shape.dtype)


def _compare(ins: Instruction, a: Any, b: Any) -> Any:
    direction = ins.attrs.get("direction", "")
    fn = {"EQ": arith.equal, "NE": arith.not_equal, "LT": arith.lt, "LE": arith.le, "GT": arith.gt,
          "GE": arith.ge}.get(direction)
    if fn is None:
        raise HloParseError(f"line {ins.line}: unsupported comparison direction {direction!r}")
    return fn(a, b)


_SCALAR: dict[str, Callable[..., Any]] = {
    "add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b,
    "divide": lambda a, b: a / b, "maximum": arith.max_expr, "minimum": arith.min_expr,
    "select": lambda p, a, b: arith.select(p, a, b)}


def _reducer(b: _Builder, ins: Instruction, n: int) -> Any:
    fn = b.scalar_function(ins.attrs.get("to_apply", ""), ins.line)
    if n == 1:
        return comm_reducer(lambda x, y: fn(x, y), lambda t: arith.const(0, t), name=ins.attrs["to_apply"])
    return comm_reducer(lambda xs, ys: list(fn(*xs, *ys)), lambda *ts: [arith.const(0, t) for t in ts],
                        name=ins.attrs["to_apply"])


def _window(ins: Instruction, rank: int) -> dict[str, list]:
    text = ins.attrs.get("window", "{}").strip("{}")
    out: dict[str, list] = {"size": [1] * rank, "stride": [1] * rank, "pad": [(0, 0)] * rank,
                            "lhs_dilate": [1] * rank, "rhs_dilate": [1] * rank}
    for item in text.split():
        key, value = item.split("=")
        if key == "pad":
            out["pad"] = [tuple(int(x) for x in p.split("_")) for p in value.split("x")]
        else:
            out[key] = [int(x) for x in value.split("x")]
    return out


def _reduce(b: _Builder, ins: Instruction, xs: list) -> Any:
    n = len(xs) // 2
    out = ops.reduce(xs[:n], xs[n:], _ints(ins.attrs.get("dimensions", "")), _reducer(b, ins, n), name=ins.name)
    return tuple(out) if isinstance(out, list) else out


def _reduce_window(b: _Builder, ins: Instruction, xs: list) -> Any:
    n = len(xs) // 2
    rank = len(xs[0].shape)
    w = _window(ins, rank)
    out = ops.reduce_window(xs[:n] if n > 1 else xs[0], xs[n:] if n > 1 else xs[1], w["size"], w["stride"],
                            w["pad"], w["rhs_dilate"], _reducer(b, ins, n), base_dilation=w["lhs_dilate"],
                            name=ins.name)
    return tuple(out) if isinstance(out, list) else out


def _slice(b: _Builder, ins: Instruction, xs: list) -> Any:
    parts = re.findall(r"\[(-?\d+):(-?\d+)(?::(-?\d+))?\]", ins.attrs.get("slice", ""))
    starts = [int(p[0]) for p in parts]
    limits = [int(p[1]) for p in parts]
    strides = [int(p[2]) if p[2] else 1 for p in parts]
    return ops.slice(xs[0], starts, limits, strides, name=ins.name)


def _pad(b: _Builder, ins: Instruction, xs: list) -> Any:
    config = []
    for p in ins.attrs.get("padding", "").split("x"):
        v = [int(x) for x in p.split("_")]
        config.append((v[0], v[1], v[2] if len(v) > 2 else 0))
    return ops.pad(xs[0], xs[1], config, name=ins.name)


def _dot(b: _Builder, ins: Instruction, xs: list) -> Any:
    a = ins.attrs
    return ops.dot(xs[0], xs[1], _ints(a.get("lhs_batch_dims", "")), _ints(a.get("rhs_batch_dims", "")),
                   _ints(a.get("lhs_contracting_dims", "")), _ints(a.get("rhs_contracting_dims", "")),
                   name=ins.name)


def _bitcast(b: _Builder, ins: Instruction, xs: list) -> Any:
    """A bitcast keeps the physical bytes: out index -> physical position -> input index."""
    from schedule.tensor import compute

    x = xs[0]
    src = [int(arith.value_of(e)) for e in x.shape]  # type: ignore[arg-type]
    dst = ins.shape.dims
    src_layout = b.layouts.get(id(x.op)) or list(range(len(src) - 1, -1, -1))
    dst_layout = ins.shape.layout or list(range(len(dst) - 1, -1, -1))
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
    return compute(dst, body, name=ins.name, tag="bitcast",
                   attrs={"bitcast_orders": (tuple(src_major), tuple(dst_major))})


def _gather(b: _Builder, ins: Instruction, xs: list) -> Any:
    a = ins.attrs
    operand, indices = xs
    rank = len(operand.shape)
    if (_ints(a.get("collapsed_slice_dims", "")) or _ints(a.get("index_vector_dim", "1")) != [1]
            or _ints(a.get("offset_dims", "")) != list(range(1, rank + 1))):
        raise HloParseError(f"line {ins.line}: only the simplified gather is supported (2-D indices, "
                            "index_vector_dim=1, no collapsed dims, offset_dims=1..rank)")
    return ops.gather(operand, indices, _ints(a.get("slice_sizes", "")), _ints(a.get("start_index_map", "")),
                      name=ins.name)


def _opaque(b: _Builder, ins: Instruction, xs: list) -> Any:
    """An op whose reads are unknown here: an extern over its operands (undefined maps). It
    calls the function registered as ``hlo.<opcode>``, which a user may provide to run it."""
    from schedule.buffer import call_packed
    from schedule.tensor import extern

    return extern(ins.shape.dims, [x for x in xs if isinstance(x, Tensor)],
                  lambda ins_, outs: call_packed(f"hlo.{ins.opcode}", *ins_, *outs), name=ins.name,
                  dtype=ins.shape.dtype, tag=ins.opcode)


def _convolution(ins: Instruction, xs: list) -> Any:
    rank = len(xs[0].shape) - 2
    w = _window(ins, rank)
    return ops.convolution(xs[0], xs[1], ins.attrs.get("dim_labels", ""), w["size"], w["stride"], w["pad"],
                           w["lhs_dilate"], w["rhs_dilate"], int(ins.attrs.get("feature_group_count", "1")),
                           int(ins.attrs.get("batch_group_count", "1")), name=ins.name)


def _fusion(b: _Builder, ins: Instruction, xs: list) -> Any:
    comp = b.comps.get(ins.attrs.get("calls", "").lstrip("%"))
    if comp is None:
        raise HloParseError(f"line {ins.line}: fusion {ins.name!r} calls an unknown computation")
    root = b.instantiate(comp, xs)
    for t in root if isinstance(root, tuple) else (root,):
        if isinstance(t, Tensor) and isinstance(getattr(t.op, "attrs", None), dict):
            t.op.attrs["fusion"] = ins.name  # analyses treat a fusion's root as XLA does
    return root


def _elementwise(kind: str) -> Callable[[_Builder, Instruction, list], Any]:
    fn = getattr(ops, kind)
    return lambda b, ins, xs: fn(*xs, name=ins.name)


def _convert(b: _Builder, ins: Instruction, xs: list) -> Any:
    from schedule.tensor import compute

    x = xs[0]
    return compute(ins.shape.dims, lambda *i: arith.cast(ins.shape.dtype, x[tuple(i)] if i else x[()]),
                   name=ins.name, tag="convert")


def _compare_op(b: _Builder, ins: Instruction, xs: list) -> Any:
    from schedule.tensor import compute

    x, y = xs
    return compute(ins.shape.dims, lambda *i: _compare(ins, x[tuple(i)] if i else x[()], y[tuple(i)] if i else y[()]),
                   name=ins.name, tag="compare")


def _map(b: _Builder, ins: Instruction, xs: list) -> Any:
    from schedule.tensor import compute

    fn = b.scalar_function(ins.attrs.get("to_apply", ""), ins.line)
    return compute(ins.shape.dims, lambda *i: fn(*(x[tuple(i)] if i else x[()] for x in xs)),
                   name=ins.name, tag="map")


_OPS: dict[str, Callable[[_Builder, Instruction, list], Any]] = {
    **{k: _elementwise(k) for k in ("add", "subtract", "multiply", "divide", "maximum", "minimum",
                                     "exponential", "log", "sqrt", "tanh", "negate", "abs", "copy")},
    "rsqrt": lambda b, ins, xs: ops.divide(ops.constant(1.0, [], ins.shape.dtype), ops.sqrt(xs[0]), name=ins.name),
    "select": lambda b, ins, xs: ops.select(*xs, name=ins.name),
    "convert": _convert,
    "compare": _compare_op,
    "map": _map,
    "constant": lambda b, ins, xs: ops.constant(_constant_value(ins).value, ins.shape.dims, ins.shape.dtype,
                                                name=ins.name),
    "iota": lambda b, ins, xs: ops.iota(ins.shape.dims, int(ins.attrs.get("iota_dimension", "0")),
                                        ins.shape.dtype, name=ins.name),
    "broadcast": lambda b, ins, xs: ops.broadcast(xs[0], ins.shape.dims, _ints(ins.attrs.get("dimensions", "")),
                                                  name=ins.name),
    "transpose": lambda b, ins, xs: ops.transpose(xs[0], _ints(ins.attrs.get("dimensions", "")), name=ins.name),
    "reverse": lambda b, ins, xs: ops.reverse(xs[0], _ints(ins.attrs.get("dimensions", "")), name=ins.name),
    "reshape": lambda b, ins, xs: ops.reshape(xs[0], ins.shape.dims, name=ins.name),
    "slice": _slice,
    "concatenate": lambda b, ins, xs: ops.concatenate(xs, _ints(ins.attrs.get("dimensions", ""))[0], name=ins.name),
    "pad": _pad,
    "reduce": _reduce,
    "reduce-window": _reduce_window,
    "dot": _dot,
    "dynamic-slice": lambda b, ins, xs: ops.dynamic_slice(xs[0], xs[1:], _ints(ins.attrs["dynamic_slice_sizes"]),
                                                          name=ins.name),
    "dynamic-update-slice": lambda b, ins, xs: ops.dynamic_update_slice(xs[0], xs[1], xs[2:], name=ins.name),
    "fusion": _fusion,
    "bitcast": _bitcast,
    "gather": _gather,
    "convolution": lambda b, ins, xs: _convolution(ins, xs),
    "scaled-dot": lambda b, ins, xs: ops.scaled_dot(
        *xs, _ints(ins.attrs.get("lhs_batch_dims", "")), _ints(ins.attrs.get("rhs_batch_dims", "")),
        _ints(ins.attrs.get("lhs_contracting_dims", "")), _ints(ins.attrs.get("rhs_contracting_dims", "")),
        name=ins.name),
    **{k: _opaque for k in ("triangular-solve", "all-gather", "custom-call",
                            "sort", "scatter", "cholesky", "fft", "rng")},
    "tuple": lambda b, ins, xs: tuple(xs),
    "get-tuple-element": lambda b, ins, xs: xs[0][int(ins.attrs.get("index", "0"))],
}


def parse(text: str) -> HloModule:
    """The module in *text* (see the module docstring)."""
    return _Builder(_parse_computations(text)).build_entry()

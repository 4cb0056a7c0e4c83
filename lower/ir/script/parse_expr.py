"""TVMScript expressions read back into our IR, from Python's ``ast`` (nothing is executed).

Python's operators build what TVM's operators build (constants folded, ``-x`` as ``x * -1``);
``T.<name>(...)`` builds TVM's node or intrinsic of that name; ``A[i, j]`` reads a buffer view
at the flat index its shape (or strides) gives. Names resolve to what the script defined, then
to Python values of the function's globals and closure (``n = 128`` around the function).
Trees thousands of nodes deep are read on an explicit stack.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from bound.arith.simplify import simplify
from lower.ir.script.expr import DTYPE_FIRST, RENAMED
from lower.ir.stmt import Buffer, BufferView, Load
from schedule.base.recursion import run
from schedule.ir import arith
from schedule.ir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    Broadcast,
    Call,
    Cast,
    Div,
    Expr,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    Let,
    Max,
    Min,
    Mod,
    Mul,
    Not,
    Or,
    Ramp,
    Select,
    StringImm,
    Sub,
    Var,
)
from schedule.ir.itervar import IterVar, IterVarType, Range
from schedule.ir.reduce import CommReducer

_DTYPES = {"bool", "float16", "float32", "float64", "bfloat16", "handle"} | {
    f"{k}{b}" for k in ("int", "uint") for b in (8, 16, 32, 64)}
#: Node constructors ``T.Add(a, b)``: no folding.
_NODES: dict[str, type] = {"Add": Add, "Sub": Sub, "Mul": Mul, "Div": Div, "Mod": Mod, "FloorDiv": FloorDiv,
                           "FloorMod": FloorMod, "Min": Min, "Max": Max, "EQ": EQ, "NE": NE, "LT": LT, "LE": LE,
                           "GT": GT, "GE": GE, "And": And, "Or": Or}
#: Functions of two operands.
_BINARY: dict[str, Callable[[Any, Any], Expr]] = {
    "truncmod": lambda a, b: Mod(*arith.match_types(a, b)), "truncdiv": lambda a, b: Div(*arith.match_types(a, b)),
    "floordiv": arith.floordiv, "floormod": arith.floormod, "min": lambda a, b: Min(*arith.match_types(a, b)),
    "max": lambda a, b: Max(*arith.match_types(a, b))}
_OPERATORS: dict[type, Callable[[Any, Any], Expr]] = {
    ast.Add: arith.add, ast.Sub: arith.sub, ast.Mult: arith.mul, ast.FloorDiv: arith.floordiv,
    ast.Mod: arith.floormod, ast.Div: arith.true_div, ast.BitAnd: arith.and_op, ast.BitOr: arith.or_op,
    ast.LShift: lambda a, b: arith.bit_op("shift_left", a, b),
    ast.RShift: lambda a, b: arith.bit_op("shift_right", a, b),
    ast.BitXor: lambda a, b: arith.bit_op("bitwise_xor", a, b)}
_COMPARE: dict[type, Callable[[Any, Any], Expr]] = {
    ast.Lt: arith.lt, ast.LtE: arith.le, ast.Gt: arith.gt, ast.GtE: arith.ge, ast.Eq: arith.eq_node,
    ast.NotEq: arith.ne_node}
#: Intrinsics whose result is boolean, or a handle; others take their first operand's type.
_BOOL_CALLS = {"likely", "isnan", "isinf", "isfinite", "isnullptr"}
_HANDLE_CALLS = {"tvm_access_ptr", "address_of", "tvm_thread_allreduce", "type_annotation", "tvm_stack_alloca",
                 "tvm_stack_make_shape", "tvm_stack_make_array", "tvm_load_matrix_sync", "tvm_store_matrix_sync",
                 "tvm_mma_sync", "tvm_fill_fragment", "tvm_bmma_sync", "tvm_struct_get"}
_INT_CALLS = {"tvm_storage_sync", "tvm_warp_activemask", "tvm_call_packed", "tvm_call_packed_lowered"}
_RENAMED = {script: ours for ours, script in RENAMED.items()}


class ScriptError(SyntaxError):
    """Text that is not TVMScript of the subset we read: the line, column and construct."""

    def __init__(self, message: str, node: ast.AST | None = None, source: SourceText | None = None) -> None:
        line = getattr(node, "lineno", None)
        column = getattr(node, "col_offset", None)
        if isinstance(node, SyntaxError) and node.offset:
            column = node.offset - 1
        text = None
        if source is not None and line is not None:
            line += source.line_offset
            text = source.line(line)
        where = f"line {line}, column {column + 1}: " if line is not None and column is not None else ""
        super().__init__(f"TVMScript: {where}{message}", (source.filename if source else "<tvmscript>", line,
                                                           None if column is None else column + 1, text))


@dataclass
class SourceText:
    """The text parsed and where its first line sits in its file."""

    text: str
    filename: str = "<tvmscript>"
    line_offset: int = 0

    def line(self, number: int) -> str | None:
        lines = self.text.splitlines()
        k = number - self.line_offset - 1
        return lines[k] if 0 <= k < len(lines) else None


@dataclass(eq=False)
class View:
    """A buffer as the script names it: *flat* storage seen with *shape* (and *strides*, and
    an element offset)."""

    flat: Buffer
    shape: tuple[Expr, ...]
    strides: tuple[Expr, ...] = ()
    offset: Expr | None = None

    def index(self, indices: list[Expr]) -> Expr:
        if len(indices) == 1 and (len(self.shape) <= 1 or isinstance(indices[0], Ramp)):
            flat: Expr = indices[0]
        else:
            if len(indices) != len(self.shape):
                raise ValueError(f"{len(indices)} indices for the {len(self.shape)}-dimensional buffer")
            flat = arith.const(0)
            for d, i in enumerate(indices):
                flat = (arith.add(flat, arith.mul(i, self.strides[d])) if self.strides
                        else arith.add(arith.mul(flat, self.shape[d]), i))
        return flat if self.offset is None else arith.add(flat, self.offset)


@dataclass(eq=False)
class Data:
    """``A.data``, or an allocation's variable: the storage of a flat buffer."""

    flat: Buffer


@dataclass(eq=False)
class Thread:
    """``T.env_thread("threadIdx.x")``: a thread index not yet launched."""

    iter_var: IterVar


@dataclass
class Scope:
    """Names defined by the script, innermost last, over the function's Python values."""

    outer: dict[str, Any] = field(default_factory=dict)
    frames: list[dict[str, Any]] = field(default_factory=lambda: [{}])

    def lookup(self, name: str) -> Any:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        return self.outer.get(name, _MISSING)

    def bind(self, name: str, value: Any) -> None:
        self.frames[-1][name] = value


_MISSING = object()


def thread_iter_var(tag: str) -> IterVar:
    """The iteration variable of a launched thread, as lowering makes them (no domain)."""
    return IterVar(None, Var(tag), IterVarType.ThreadIndex, tag)


class ExprReader:
    """Evaluates ``ast`` expressions in *scope* to expressions, views and Python values."""

    def __init__(self, scope: Scope, source: SourceText) -> None:
        self.scope, self.source = scope, source

    def error(self, message: str, node: ast.AST) -> ScriptError:
        return ScriptError(message, node, self.source)

    def __call__(self, node: ast.AST) -> Any:
        return run(self.dispatch(node), self.dispatch)

    def expr(self, node: ast.AST) -> Expr:
        value = self(node)
        try:
            return arith.convert(value.flat if isinstance(value, Data) else value)
        except (TypeError, ValueError):
            raise self.error(f"an expression is expected here, not {type(value).__name__}", node) from None

    def dispatch(self, node: ast.AST) -> Any:
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            raise self.error(f"{type(node).__name__} is not part of TVMScript's expressions", node)
        try:
            result = method(node)
        except ScriptError:
            raise
        except (TypeError, ValueError, ZeroDivisionError) as exc:
            raise self.error(str(exc), node) from None
        return self._guarded(result, node) if isinstance(result, Generator) else result

    def _guarded(self, gen: Generator[Any, Any, Any], node: ast.AST) -> Generator[Any, Any, Any]:
        """*gen*, its errors located at *node* (what it yields still runs on the driver's stack)."""
        try:
            return (yield from gen)
        except ScriptError:
            raise
        except (TypeError, ValueError, ZeroDivisionError, IndexError, KeyError) as exc:
            raise self.error(str(exc).strip("'\""), node) from None

    # -- leaves ----------------------------------------------------------------------------

    def visit_Constant(self, node: ast.Constant) -> Any:  # noqa: N802
        return node.value

    def visit_Name(self, node: ast.Name) -> Any:  # noqa: N802
        value = self.scope.lookup(node.id)
        if value is _MISSING:
            raise self.error(f"name {node.id!r} is not defined (define it before its use, e.g. "
                             f"{node.id} = T.int32())", node)
        return value.iter_var.var if isinstance(value, Thread) else value

    def visit_Attribute(self, node: ast.Attribute) -> Generator[Any, Any, Any]:  # noqa: N802
        if isinstance(node.value, ast.Name) and node.value.id == "T":
            return ("T", node.attr)
        base = yield node.value
        if isinstance(base, View) and node.attr == "data":
            return Data(base.flat)
        if isinstance(base, View) and node.attr in ("shape", "strides", "elem_offset"):
            offset = base.offset if base.offset is not None else arith.const(0)
            return {"shape": base.shape, "strides": base.strides, "elem_offset": offset}[node.attr]
        if isinstance(base, (int, float, str, tuple, list)) or base is None:
            raise self.error(f"no attribute {node.attr!r} here", node)
        raise self.error(f"attribute {node.attr!r} of {type(base).__name__} is not part of TVMScript", node)

    def visit_Tuple(self, node: ast.Tuple) -> Generator[Any, Any, tuple]:  # noqa: N802
        items = []
        for x in node.elts:
            items.append((yield x))
        return tuple(items)

    def visit_List(self, node: ast.List) -> Generator[Any, Any, list]:  # noqa: N802
        return list((yield from self.visit_Tuple(node)))  # type: ignore[arg-type]

    def visit_Dict(self, node: ast.Dict) -> Generator[Any, Any, dict]:  # noqa: N802
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                raise self.error("** in a dictionary is not part of TVMScript", node)
            out[(yield k)] = yield v
        return out

    # -- operators -------------------------------------------------------------------------

    def visit_BinOp(self, node: ast.BinOp) -> Generator[Any, Any, Any]:  # noqa: N802
        a, b = (yield node.left), (yield node.right)
        if _python(a) and _python(b):
            return _fold_python(node, a, b, self)
        fn = _OPERATORS.get(type(node.op))
        if fn is None:
            raise self.error(f"the operator {type(node.op).__name__} is not part of TVMScript", node)
        return fn(_e(a), _e(b))

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Generator[Any, Any, Any]:  # noqa: N802
        a = yield node.operand
        if isinstance(node.op, ast.USub):
            if _python(a):
                return -a
            if isinstance(a, (IntImm, FloatImm)):
                return arith.const(-a.value, a.dtype)
            return arith.mul(a, arith.const(-1, a.dtype))
        if isinstance(node.op, ast.UAdd):
            return a
        if isinstance(node.op, ast.Not):
            return (not a) if _python(a) else Not(_e(a))
        return arith.bitwise_not(_e(a))

    def visit_BoolOp(self, node: ast.BoolOp) -> Generator[Any, Any, Expr]:  # noqa: N802
        fn = arith.logical_and if isinstance(node.op, ast.And) else arith.logical_or
        out = yield node.values[0]
        for x in node.values[1:]:
            out = fn(_e(out), _e((yield x)))
        return out

    def visit_Compare(self, node: ast.Compare) -> Generator[Any, Any, Any]:  # noqa: N802
        left = yield node.left
        result: Expr | None = None
        for op, right_node in zip(node.ops, node.comparators):
            right = yield right_node
            fn = _COMPARE.get(type(op))
            if fn is None:
                raise self.error(f"the comparison {type(op).__name__} is not part of TVMScript", node)
            one = fn(_e(left), _e(right))
            result = one if result is None else arith.logical_and(result, one)
            left = right
        return result

    def visit_IfExp(self, node: ast.IfExp) -> Generator[Any, Any, Expr]:  # noqa: N802
        c, a, b = (yield node.test), (yield node.body), (yield node.orelse)
        return arith.select(_e(c), _e(a), _e(b))

    def visit_Subscript(self, node: ast.Subscript) -> Generator[Any, Any, Any]:  # noqa: N802
        base = yield node.value
        indices = yield from self.indices(node.slice)
        if isinstance(base, View):
            return Load(base.flat, base.index(indices))
        if isinstance(base, (tuple, list)) and len(indices) == 1 and isinstance(indices[0], IntImm):
            return base[indices[0].value]
        raise self.error(f"{type(base).__name__} cannot be indexed here (a buffer is)", node)

    def indices(self, node: ast.AST) -> Generator[Any, Any, list[Expr]]:
        """The element indices of a subscript: expressions, a slice as a ramp."""
        items = node.elts if isinstance(node, ast.Tuple) else [node]
        out = []
        for x in items:
            if isinstance(x, ast.Slice):
                if x.lower is None or x.upper is None:
                    raise self.error("a slice of a buffer needs its start and stop (A[0:4])", x)
                lo, hi = _e((yield x.lower)), _e((yield x.upper))
                step = _e((yield x.step)) if x.step is not None else arith.const(1, lo.dtype)
                lanes = arith.value_of(simplify(arith.floordiv(arith.sub(hi, lo), step)))
                if not isinstance(lanes, int) or lanes < 1:
                    raise self.error("a slice of a buffer spans a constant number of elements", x)
                out.append(Ramp(lo, step, lanes))
            else:
                out.append(_e((yield x)))
        return out

    # -- calls -----------------------------------------------------------------------------

    def visit_Call(self, node: ast.Call) -> Generator[Any, Any, Any]:  # noqa: N802
        fn = node.func
        if isinstance(fn, ast.Lambda):
            raise self.error("a lambda is only read inside T.comm_reducer", node)
        target = yield fn
        if target == ("T", "comm_reducer"):
            return (yield from self.comm_reducer(node))
        if target in (("T", "Let"),):
            return (yield from self.let(node))
        args = []
        for a in node.args:
            args.append((yield a))
        kwargs = {}
        for k in node.keywords:
            kwargs[k.arg] = yield k.value
        if isinstance(target, tuple) and target[1] in DTYPE_FIRST and "dtype" in kwargs:
            args.insert(0, kwargs.pop("dtype"))  # T.call_extern("f", x, dtype="int32")
        if isinstance(target, tuple) and len(target) == 2 and target[0] == "T":
            return self.t_call(target[1], args, kwargs, node)
        if target is range:
            raise self.error("range(...) is only a loop's iterator", node)
        raise self.error(f"calling {type(target).__name__} is not part of TVMScript", node)

    def t_call(self, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        if name in _DTYPES:
            if kwargs or len(args) > 1:
                raise self.error(f"T.{name} takes one value", node)
            if not args:
                return ("declare", name)
            return _typed(name, args[0])
        if name in _NODES:
            a, b = _e(args[0]), _e(args[1])
            if name not in ("And", "Or"):
                a, b = arith.match_types(a, b)
            return _NODES[name](a, b)
        if name in _BINARY:
            return _BINARY[name](_e(args[0]), _e(args[1]))
        if name == "Cast":
            return Cast(_dtype(args[0]), _e(args[1]))
        if name == "cast":  # T.cast(value, dtype), which folds constants
            return arith.cast(_dtype(args[1] if len(args) > 1 else kwargs["dtype"]), _e(args[0]))
        if name == "Select":
            return Select(_e(args[0]), *arith.match_types(_e(args[1]), _e(args[2])))
        if name in ("Ramp", "ramp"):  # T.ramp and T.broadcast are TVM's lower-case spellings
            return Ramp(_e(args[0]), _e(args[1]), _int(args[2]))
        if name in ("Broadcast", "broadcast"):
            return Broadcast(_e(args[0]), _int(args[1]))
        if name == "Not":
            return Not(_e(args[0]))
        if name == "Range":
            lo, hi = _e(args[0]), _e(args[1]) if len(args) > 1 else None
            return Range.from_min_extent(lo, hi) if hi is not None else Range.from_min_extent(0, lo)
        if name == "iter_var":
            var, dom, kind, tag = args
            return IterVar(dom, var, IterVarType[_str(kind)], _str(tag))
        if name == "meta_var":
            return args[0]
        if name == "tvm_stack_make_shape":
            return ("shape", tuple(_e(a) for a in args))
        if name == "tvm_stack_make_array":  # a region of a buffer, as a packed call receives it
            data, shape, strides, _, _, offset = args
            if not isinstance(data, Data) or not (isinstance(shape, tuple) and shape[:1] == ("shape",)):
                raise ValueError("T.tvm_stack_make_array(A.data, T.tvm_stack_make_shape(...), "
                                 "T.tvm_stack_make_shape(...), ndim, zero, offset) is the form read")
            return BufferView(data.flat, data.flat.name, shape[1], strides[1] if isinstance(strides, tuple) else (),
                              _e(offset))
        return self.intrinsic(name, args, node)

    def intrinsic(self, name: str, args: list[Any], node: ast.AST) -> Call:
        name = _RENAMED.get(name, name)
        if name in DTYPE_FIRST:
            dtype, rest = _dtype(args[0]), [_arg(a) for a in args[1:]]
            return Call(dtype, name, tuple(rest))
        values = tuple(_arg(a) for a in args)
        if name in _BOOL_CALLS:
            dtype = "bool"
        elif name in _HANDLE_CALLS:
            dtype = "handle"
        elif name in _INT_CALLS:
            dtype = "int32"
        elif name == "tvm_if_then_else":
            dtype = values[1].dtype
        else:
            numeric = [v for v in values if not isinstance(v, StringImm)]
            dtype = numeric[0].dtype if numeric else "int32"
        return Call(dtype, name, values)

    def comm_reducer(self, node: ast.Call) -> Generator[Any, Any, CommReducer]:
        if len(node.args) != 2 or not isinstance(node.args[0], ast.Lambda):
            raise self.error("T.comm_reducer(lambda x, y: ..., [identity]) is the form read", node)
        identity = [_e(x) for x in (yield node.args[1])]
        params = [a.arg for a in node.args[0].args.args]
        if len(params) != 2 * len(identity):
            raise self.error("T.comm_reducer's lambda takes two parameters per identity element", node)
        dtypes = [x.dtype for x in identity] * 2
        variables = [Var(p, d) for p, d in zip(params, dtypes)]
        self.scope.frames.append(dict(zip(params, variables)))
        try:
            result = yield node.args[0].body
        finally:
            self.scope.frames.pop()
        results = tuple(_e(r) for r in (result if isinstance(result, tuple) else (result,)))
        n = len(identity)
        return CommReducer(tuple(variables[:n]), tuple(variables[n:]), results, tuple(identity))

    def let(self, node: ast.Call) -> Generator[Any, Any, Let]:
        where = next((k.value for k in node.keywords if k.arg == "where"), None)
        if len(node.args) != 1 or not isinstance(where, ast.Dict) or len(where.keys) != 1:
            raise self.error("T.Let(body, where={x: value}) is the form read", node)
        key = where.keys[0]
        if not isinstance(key, ast.Name):
            raise self.error("T.Let binds a name", node)
        value = _e((yield where.values[0]))
        var = Var(key.id, value.dtype)
        self.scope.frames.append({key.id: var})
        try:
            body = _e((yield node.args[0]))
        finally:
            self.scope.frames.pop()
        return Let(var, value, body)


def _python(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _fold_python(node: ast.BinOp, a: Any, b: Any, reader: ExprReader) -> Any:
    ops: dict[type, Callable[[Any, Any], Any]] = {
        ast.Add: lambda x, y: x + y, ast.Sub: lambda x, y: x - y, ast.Mult: lambda x, y: x * y,
        ast.FloorDiv: lambda x, y: x // y, ast.Mod: lambda x, y: x % y, ast.Div: lambda x, y: x / y,
        ast.Pow: lambda x, y: x ** y}
    fn = ops.get(type(node.op))
    if fn is None:
        raise reader.error(f"the operator {type(node.op).__name__} on Python numbers is not read", node)
    return fn(a, b)


def _e(x: Any) -> Expr:
    if isinstance(x, Data):
        raise TypeError("a buffer's data is not a value here")
    if isinstance(x, View):
        raise TypeError("a buffer is not a value: index it (A[i])")
    if isinstance(x, tuple) and len(x) == 2 and x[0] == "T":
        raise TypeError(f"T.{x[1]} is not a value here")
    return arith.convert(x)


def _arg(x: Any) -> Expr:
    """An intrinsic's argument: an expression, a string, or a buffer's storage."""
    if isinstance(x, str):
        return StringImm(x)
    if isinstance(x, Data):
        return BufferView(x.flat, x.flat.name, (x.flat.size,), (arith.const(1),), arith.const(0))
    return _e(x)


def _dtype(x: Any) -> str:
    text = x.value if isinstance(x, StringImm) else x
    if not isinstance(text, str):
        raise TypeError(f"a type name (\"float32\") is expected, got {x!r}")
    return text


def _str(x: Any) -> str:
    if not isinstance(x, str):
        raise TypeError(f"a string is expected, got {x!r}")
    return x


def _int(x: Any) -> int:
    value = arith.value_of(_e(x))
    if not isinstance(value, int):
        raise TypeError(f"a constant integer is expected, got {x!r}")
    return value


def _typed(dtype: str, value: Any) -> Expr:
    """``T.float32(1.5)``, ``T.float32("inf")``, ``T.int64(3)``, ``T.bool(True)``; a
    non-constant value is cast."""
    if isinstance(value, str):
        special = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}
        if value not in special:
            raise ValueError(f"T.{dtype}({value!r}): the strings read are 'inf', '-inf' and 'nan'")
        return FloatImm(dtype, special[value])
    if isinstance(value, bool) or _python(value):
        if dtype.startswith("float") or dtype == "bfloat16":
            return FloatImm(dtype, float(value))
        return IntImm(dtype, int(value))
    e = _e(value)
    return e if e.dtype == dtype else Cast(dtype, e)

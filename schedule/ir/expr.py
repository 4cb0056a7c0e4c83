"""Immutable scalar expression nodes.

Nodes are frozen dataclasses; building them through the operators (``a + b``, ``a < b``) or the
functions of :mod:`schedule.ir.arith` matches dtypes and folds constants as TVM does, while the raw
constructors only check invariants.

Equality: ``a == b`` builds an :class:`EQ` node, as in TVM. ``bool()`` of that node is the
structural equality of the two trees, with variables, IterVars, tensors and operations compared
by identity; ``bool()`` of any other expression raises ``TypeError``. ``hash()`` is the matching
structural hash, except for :class:`Var`, which hashes by identity (two ``var("n")`` are two
variables).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, fields
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from schedule.base.errors import ScheduleTypeError
from schedule.ir.dtype import check_dtype, int_range, is_bool, is_float, is_index, lanes, with_lanes

if TYPE_CHECKING:
    from schedule.ir.itervar import IterVar

# What the nodes' methods call in the modules built on them: arith (the builders, with their
# constant folding), functor (structural hashing and equality) and printer (the text). Each of
# those fills its name in when it is imported (install), and the schedule face imports them
# before any user code runs, so the node classes import nothing above them.
_arith: Any = None
_functor: Any = None
_printer: Any = None


def install(name: str, module: Any) -> None:
    """Give the node classes the module *name* (``arith``, ``functor`` or ``printer``)."""
    if name not in ("arith", "functor", "printer"):
        raise ValueError(f"expr.install: no slot for {name!r}")
    globals()[f"_{name}"] = module


def _defers(other: Any) -> bool:
    """Whether *other*'s own reflected operator takes over (a whole tensor's)."""
    return getattr(type(other), "defers_arithmetic", False)


class Expr:
    """Base of all scalar expressions; see the module docstring on equality."""

    visit_name: ClassVar[str] = "expr"
    dtype: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.visit_name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", cls.__name__).lower()

    # -- arithmetic: every operator goes through schedule.ir.arith (type matching, folding); with
    # a whole tensor the tensor's operator builds a compute (schedule.operation.tensor_ops) --
    def __add__(self, other: Any) -> Expr: return NotImplemented if _defers(other) else _arith.add(self, other)
    def __radd__(self, other: Any) -> Expr: return _arith.add(other, self)
    def __sub__(self, other: Any) -> Expr: return NotImplemented if _defers(other) else _arith.sub(self, other)
    def __rsub__(self, other: Any) -> Expr: return _arith.sub(other, self)
    def __mul__(self, other: Any) -> Expr: return NotImplemented if _defers(other) else _arith.mul(self, other)
    def __rmul__(self, other: Any) -> Expr: return _arith.mul(other, self)
    def __truediv__(self, other: Any) -> Expr:
        return NotImplemented if _defers(other) else _arith.true_div(self, other)
    def __rtruediv__(self, other: Any) -> Expr: return _arith.true_div(other, self)
    def __floordiv__(self, other: Any) -> Expr:
        return NotImplemented if _defers(other) else _arith.floordiv(self, other)
    def __rfloordiv__(self, other: Any) -> Expr: return _arith.floordiv(other, self)
    def __mod__(self, other: Any) -> Expr: return NotImplemented if _defers(other) else _arith.floormod(self, other)
    def __rmod__(self, other: Any) -> Expr: return _arith.floormod(other, self)
    def __neg__(self) -> Expr: return _arith.neg(self)
    def __lt__(self, other: Any) -> Expr: return _arith.lt(self, other)
    def __le__(self, other: Any) -> Expr: return _arith.le(self, other)
    def __gt__(self, other: Any) -> Expr: return _arith.gt(self, other)
    def __ge__(self, other: Any) -> Expr: return _arith.ge(self, other)
    def __and__(self, other: Any) -> Expr: return _arith.and_op(self, other)
    def __rand__(self, other: Any) -> Expr: return _arith.and_op(other, self)
    def __or__(self, other: Any) -> Expr: return _arith.or_op(self, other)
    def __ror__(self, other: Any) -> Expr: return _arith.or_op(other, self)
    def __invert__(self) -> Expr: return _arith.invert_op(self)
    def __xor__(self, other: Any) -> Expr: return _arith.bit_op("bitwise_xor", self, other)
    def __rxor__(self, other: Any) -> Expr: return _arith.bit_op("bitwise_xor", other, self)
    def __rshift__(self, other: Any) -> Expr: return _arith.bit_op("shift_right", self, other)
    def __rrshift__(self, other: Any) -> Expr: return _arith.bit_op("shift_right", other, self)
    def __lshift__(self, other: Any) -> Expr: return _arith.bit_op("shift_left", self, other)
    def __rlshift__(self, other: Any) -> Expr: return _arith.bit_op("shift_left", other, self)

    def __eq__(self, other: object) -> Any:  # type: ignore[override]
        if not _arith.is_expr_like(other):
            return NotImplemented
        return _arith.eq_node(self, other)

    def __ne__(self, other: object) -> Any:  # type: ignore[override]
        if not _arith.is_expr_like(other):
            return NotImplemented
        return _arith.ne_node(self, other)

    def __hash__(self) -> int:
        return self._structural_hash

    def __bool__(self) -> bool:
        raise ScheduleTypeError(f"cannot use expression {self} as a Python bool; "
                                "use te.all / te.any to combine conditions")

    def __int__(self) -> int:
        raise ScheduleTypeError(f"int() of the non-constant expression {self}")

    def __float__(self) -> float:
        raise ScheduleTypeError(f"float() of the non-constant expression {self}")

    def equal(self, other: Any) -> Expr:
        """``self == other`` as a condition, as TVM's ``PrimExpr.equal``."""
        return _arith.equal(self, other)

    def astype(self, dtype: str) -> Expr:
        """This expression cast to *dtype* (constants fold)."""
        return _arith.cast(dtype, self)

    def same_as(self, other: object) -> bool:
        """Identity, as TVM's ``same_as``."""
        return self is other

    def __getstate__(self) -> dict[str, Any]:
        # Cached hashes come from variables' identities, which a copy does not keep.
        return {k: v for k, v in self.__dict__.items() if k not in ("_structural_hash", "_height")}

    @cached_property
    def _structural_hash(self) -> int:
        _functor.prepare_hashes(self)  # children first, so deep trees hash without recursion
        return hash((type(self).__name__, *(_hash_field(getattr(self, name)) for name in _functor.field_names(self))))

    @cached_property
    def _height(self) -> int:
        return _functor.height(self)

    def __str__(self) -> str:
        return _printer.expr_str(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self})"


#: Node decorator: immutable, identity-free ``__eq__`` (ours builds nodes), our own ``__repr__``.
_node = dataclass(frozen=True, eq=False, repr=False)


def _hash_field(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_hash_field(v) for v in value)
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return hash(value)


#: What a leaf knows of its size from the start.
_LEAF = {"_height": 1, "_node_count": 1}


def _check_expr(owner: str, name: str, value: object) -> None:
    if not isinstance(value, Expr):
        raise ScheduleTypeError(f"{owner}: {name} must be an expression, not {type(value).__name__}")


# ----------------------------------------------------------------------------- leaves

@_node
class IntImm(Expr):
    """An integer or bool constant."""

    dtype: str
    value: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtype", check_dtype(self.dtype))
        if not (is_index(self.dtype) or is_bool(self.dtype)):
            raise ScheduleTypeError(f"IntImm: dtype must be an integer or bool, not {self.dtype}")
        lo, hi = int_range(self.dtype)
        if not lo <= self.value <= hi:
            raise ValueError(f"IntImm: {self.value} does not fit in {self.dtype}")
        object.__setattr__(self, "value", int(self.value))
        self.__dict__.update(_LEAF)

    def __int__(self) -> int: return self.value
    def __index__(self) -> int: return self.value
    def __bool__(self) -> bool: return self.value != 0  # a constant is a Python bool, as TVM's
    def __float__(self) -> float: return float(self.value)


@_node
class FloatImm(Expr):
    """A floating-point constant."""

    dtype: str
    value: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtype", check_dtype(self.dtype))
        if not is_float(self.dtype):
            raise ScheduleTypeError(f"FloatImm: dtype must be a float type, not {self.dtype}")
        object.__setattr__(self, "value", float(self.value))
        self.__dict__.update(_LEAF)

    def __int__(self) -> int: return int(self.value)
    def __float__(self) -> float: return self.value


@_node
class StringImm(Expr):
    """A string constant (attribute values such as storage scopes)."""

    value: str
    dtype: str = "handle"


@_node
class Var(Expr):
    """A symbolic variable; two variables are equal only if they are the same object."""

    name: str
    dtype: str = "int32"

    __hash__ = object.__hash__

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise ScheduleTypeError(f"Var: name must be a string, not {type(self.name).__name__}")
        object.__setattr__(self, "dtype", check_dtype(self.dtype))
        self.__dict__.update(_LEAF)

    @property
    def name_hint(self) -> str:
        return self.name


@_node
class SizeVar(Var):
    """A variable standing for a size, so never negative (TVM's ``te.size_var``); otherwise a
    Var (visitors see it as one)."""


SizeVar.visit_name = "var"


# ----------------------------------------------------------------------------- arithmetic

def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _number(x: int | float, dtype: str) -> Expr:
    return FloatImm(dtype, x) if is_float(dtype) else IntImm(dtype, int(x))


@_node
class BinaryOp(Expr):
    """Two operands of one dtype, which is also the result's."""

    a: Expr
    b: Expr

    def __post_init__(self) -> None:
        name = type(self).__name__
        # A number beside an expression takes its type, as TVM's constructors take it (tir.EQ(i, 0)).
        if isinstance(self.a, Expr) and _is_number(self.b):
            object.__setattr__(self, "b", _number(self.b, self.a.dtype))
        elif isinstance(self.b, Expr) and _is_number(self.a):
            object.__setattr__(self, "a", _number(self.a, self.b.dtype))
        _check_expr(name, "a", self.a)
        _check_expr(name, "b", self.b)
        if self.a.dtype != self.b.dtype:
            raise ScheduleTypeError(f"{name}: operand dtypes differ ({self.a.dtype} vs {self.b.dtype})")
        object.__setattr__(self, "_dtype", self.a.dtype)
        # Sizes known at construction save the walks that would find them later.
        d, da, db = self.__dict__, self.a.__dict__, self.b.__dict__
        if "_height" in da and "_height" in db:
            d["_height"] = 1 + max(da["_height"], db["_height"])
        if "_node_count" in da and "_node_count" in db:
            d["_node_count"] = 1 + da["_node_count"] + db["_node_count"]

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self._dtype  # type: ignore[attr-defined]


class Add(BinaryOp):
    """``a + b``."""
class Sub(BinaryOp):
    """``a - b``."""
class Mul(BinaryOp):
    """``a * b``."""
class Div(BinaryOp):
    """Division: truncating on integers, true division on floats."""
class Mod(BinaryOp):
    """Truncating remainder (sign of the dividend)."""
class FloorDiv(BinaryOp):
    """``a // b``, rounding toward minus infinity."""
class FloorMod(BinaryOp):
    """``a % b``, with the sign of ``b``."""
class Min(BinaryOp):
    """``min(a, b)``; NaN propagates for floats."""
class Max(BinaryOp):
    """``max(a, b)``; NaN propagates for floats."""




@_node
class CmpOp(Expr):
    """A comparison: operands of one dtype, a bool result."""

    a: Expr
    b: Expr

    def __post_init__(self) -> None:
        BinaryOp.__post_init__(self)  # type: ignore[arg-type]

    @property
    def dtype(self) -> str:  # type: ignore[override]
        d = self._dtype  # type: ignore[attr-defined]
        return "bool" if "x" not in d else with_lanes("bool", lanes(d))


class EQ(CmpOp):
    """``a == b``; ``bool()`` of it is structural equality."""

    def __bool__(self) -> bool:
        return _functor.structural_equal(self.a, self.b)


class NE(CmpOp):
    """``a != b``; ``bool()`` of it is structural inequality."""

    def __bool__(self) -> bool:
        return not _functor.structural_equal(self.a, self.b)


class LT(CmpOp):
    """``a < b``."""
class LE(CmpOp):
    """``a <= b``."""
class GT(CmpOp):
    """``a > b``."""
class GE(CmpOp):
    """``a >= b``."""




@_node
class LogicalOp(Expr):
    """``&&`` / ``||`` on two bool operands."""

    a: Expr
    b: Expr

    def __post_init__(self) -> None:
        for name in ("a", "b"):
            value = getattr(self, name)
            _check_expr(type(self).__name__, name, value)
            if not is_bool(value.dtype):
                raise ScheduleTypeError(f"{type(self).__name__}: operand {value} is {value.dtype}, not bool")
        if self.a.dtype != self.b.dtype:
            raise ScheduleTypeError(f"{type(self).__name__}: operand lanes differ ({self.a.dtype} vs {self.b.dtype})")

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.a.dtype


class And(LogicalOp):
    """``a && b``."""
class Or(LogicalOp):
    """``a || b``."""




@_node
class Not(Expr):
    """``!a``."""

    a: Expr

    def __post_init__(self) -> None:
        _check_expr("Not", "a", self.a)
        if not is_bool(self.a.dtype):
            raise ScheduleTypeError(f"Not: operand {self.a} is {self.a.dtype}, not bool")

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.a.dtype


@_node
class Select(Expr):
    """``condition ? true_value : false_value``; both branches may be evaluated."""

    condition: Expr
    true_value: Expr
    false_value: Expr

    def __post_init__(self) -> None:
        # Numbers take the other branch's type, as TVM's constructor converts them (Select(c, y, 0)).
        t, f = self.true_value, self.false_value
        if _is_number(t) and _is_number(f):
            object.__setattr__(self, "true_value", t := _scalar_operand("Select", "true_value", t))
        if isinstance(t, Expr) and _is_number(f):
            object.__setattr__(self, "false_value", _number(f, t.dtype))
        elif isinstance(f, Expr) and _is_number(t):
            object.__setattr__(self, "true_value", _number(t, f.dtype))
        for f in fields(self):
            _check_expr("Select", f.name, getattr(self, f.name))
        if not is_bool(self.condition.dtype):
            raise ScheduleTypeError(f"Select: condition {self.condition} is {self.condition.dtype}, not bool")
        if self.true_value.dtype != self.false_value.dtype:
            raise ScheduleTypeError(f"Select: branch dtypes differ ({self.true_value.dtype} vs "
                                    f"{self.false_value.dtype})")
        if lanes(self.condition.dtype) != lanes(self.true_value.dtype):
            raise ScheduleTypeError(f"Select: the condition has {lanes(self.condition.dtype)} lanes, the values "
                                    f"{lanes(self.true_value.dtype)}")
        object.__setattr__(self, "_dtype", self.true_value.dtype)

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self._dtype  # type: ignore[attr-defined]


@_node
class Cast(Expr):
    """*value* converted to *dtype*, as C converts it."""

    dtype: str
    value: Expr

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtype", check_dtype(self.dtype))
        if isinstance(self.value, int) and not isinstance(self.value, bool):  # TVM's Cast("int64", 7)
            object.__setattr__(self, "value", IntImm("int32" if -(2**31) <= self.value < 2**31 else "int64",
                                                     self.value))
        elif isinstance(self.value, float):
            object.__setattr__(self, "value", FloatImm("float32", self.value))
        _check_expr("Cast", "value", self.value)


def _scalar_operand(owner: str, name: str, value: Any, like: Expr | None = None) -> Expr:
    """*value* as a scalar expression; a number takes *like*'s dtype (else int32 or float32)."""
    if _is_number(value):
        if like is not None:
            return _number(value, like.dtype)
        return FloatImm("float32", value) if isinstance(value, float) else IntImm(
            "int32" if -(2**31) <= value < 2**31 else "int64", value)
    _check_expr(owner, name, value)
    if lanes(value.dtype) != 1:
        raise ScheduleTypeError(f"{owner}: {name} must be a scalar, not the vector {value} ({value.dtype})")
    return value


def _check_lanes(owner: str, n: object) -> int:
    if isinstance(n, IntImm):
        n = n.value
    if not isinstance(n, int) or isinstance(n, bool) or n < 2:
        raise ValueError(f"{owner}: lanes must be an integer of at least 2, not {n!r}")
    return n


@_node
class Ramp(Expr):
    """The vector ``base, base + stride, ..., base + (lanes-1)*stride`` (TVM's ``Ramp``)."""

    base: Expr
    stride: Expr
    lanes: int

    def __post_init__(self) -> None:
        base = _scalar_operand("Ramp", "base", self.base, self.stride if isinstance(self.stride, Expr) else None)
        object.__setattr__(self, "base", base)
        object.__setattr__(self, "stride", _scalar_operand("Ramp", "stride", self.stride, base))
        object.__setattr__(self, "lanes", _check_lanes("Ramp", self.lanes))
        if self.stride.dtype != base.dtype:
            raise ScheduleTypeError(f"Ramp: base and stride dtypes differ ({base.dtype} vs {self.stride.dtype})")

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return with_lanes(self.base.dtype, self.lanes)


@_node
class Broadcast(Expr):
    """*value* repeated in each of *lanes* lanes (TVM's ``Broadcast``)."""

    value: Expr
    lanes: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", _scalar_operand("Broadcast", "value", self.value))
        object.__setattr__(self, "lanes", _check_lanes("Broadcast", self.lanes))

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return with_lanes(self.value.dtype, self.lanes)


@_node
class Let(Expr):
    """*body* where *var* stands for *value* (TVM's ``Let`` expression)."""

    var: Var
    value: Expr
    body: Expr

    def __post_init__(self) -> None:
        if not isinstance(self.var, Var):
            raise ScheduleTypeError(f"Let: var must be a Var, not {type(self.var).__name__}")
        object.__setattr__(self, "value", _scalar_operand("Let", "value", self.value, self.var)
                           if _is_number(self.value) else self.value)
        _check_expr("Let", "value", self.value)
        object.__setattr__(self, "body", _scalar_operand("Let", "body", self.body)
                           if _is_number(self.body) else self.body)
        _check_expr("Let", "body", self.body)
        if self.value.dtype != self.var.dtype:
            raise ScheduleTypeError(f"Let: the value of {self.var.name} is {self.value.dtype}, the variable "
                                    f"{self.var.dtype}")

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.body.dtype


@_node
class Call(Expr):
    """A call of an intrinsic (``exp``, ``likely``, ``tvm_if_then_else`` ...) by name."""

    dtype: str
    name: str
    args: tuple[Expr, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtype", check_dtype(self.dtype))
        object.__setattr__(self, "args", tuple(self.args))
        for i, arg in enumerate(self.args):
            _check_expr(f"Call {self.name}", f"argument {i}", arg)

    @property
    def op(self) -> Op:
        """The operator called, as TVM names it (``tir.call_extern``, ``tir.exp``)."""
        return Op.get(self.name if self.name.startswith("tir.") else "tir." + self.name)


class Op:
    """An operator a call names (TVM's ``tvm.ir.Op``): one object per name, so that
    ``call.op.same_as(Op.get("tir.call_extern"))`` compares operators."""

    _table: ClassVar[dict[str, Op]] = {}

    def __init__(self, name: str) -> None:
        self.name = name

    @staticmethod
    def get(name: str) -> Op:
        if not isinstance(name, str) or not name:
            raise ScheduleTypeError(f"Op.get: an operator's name is a non-empty str ('tir.exp'), got {name!r}")
        return Op._table.setdefault(name, Op(name))

    def same_as(self, other: object) -> bool:
        return self is other

    def __repr__(self) -> str:
        return f"Op({self.name})"


class DataProducer(Protocol):
    """What a :class:`ProducerLoad` reads (TVM's tir.DataProducer): a tensor of the operation
    layer, which sits above the IR and satisfies this."""

    @property
    def name(self) -> str: ...
    @property
    def dtype(self) -> str: ...
    @property
    def shape(self) -> tuple[Expr, ...]: ...


@_node
class ProducerLoad(Expr):
    """A read of one element of a tensor: ``A(i, j)``."""

    producer: DataProducer
    indices: tuple[Expr, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "indices", tuple(self.indices))
        for i, idx in enumerate(self.indices):
            _check_expr(f"load of {self.producer.name}", f"index {i}", idx)

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.producer.dtype


@dataclass(frozen=True, eq=False, repr=False)
class CommReducer:
    """A commutative combiner ``result(lhs, rhs)`` with its identity element, one per value
    (beside :class:`Reduce`, which holds one, as TVM's tir.CommReducer; built by
    :func:`schedule.ir.reduce.comm_reducer`)."""

    lhs: tuple[Var, ...]
    rhs: tuple[Var, ...]
    result: tuple[Expr, ...]
    identity_element: tuple[Expr, ...]

    def combine(self, a: Sequence[Expr], b: Sequence[Expr]) -> tuple[Expr, ...]:
        """The combined values for accumulators *a* and new values *b*."""
        vmap = {**dict(zip(self.lhs, a)), **dict(zip(self.rhs, b))}
        return tuple(_functor.substitute(r, vmap) for r in self.result)

    def __hash__(self) -> int:
        return hash(("CommReducer", len(self.lhs), self.identity_element))

    def __repr__(self) -> str:
        def join(xs: tuple[Expr, ...]) -> str:
            return ", ".join(str(x) for x in xs)
        return (f"comm_reducer(result=[{join(self.result)}], lhs=[{join(self.lhs)}], "
                f"rhs=[{join(self.rhs)}], identity_element=[{join(self.identity_element)}])")


@_node
class Reduce(Expr):
    """A commutative reduction of *source* over *axis* (only at the top of a compute body).

    A multi-value reduction (argmax) has one Reduce per output, equal except for
    *value_index*.
    """

    combiner: CommReducer
    source: tuple[Expr, ...]
    axis: tuple[IterVar, ...]
    condition: Expr
    value_index: int
    init: tuple[Expr, ...] = ()

    def __post_init__(self) -> None:
        for name in ("source", "axis", "init"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        _check_expr("Reduce", "condition", self.condition)
        if not 0 <= self.value_index < len(self.source):
            raise ValueError(f"Reduce: value_index {self.value_index} out of range")
        object.__setattr__(self, "_dtype", self.source[self.value_index].dtype)

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self._dtype  # type: ignore[attr-defined]



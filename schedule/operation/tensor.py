"""Tensors, and the base class of the operations that produce them (the operations are in
``placeholder``, ``compute``, ``extern`` and ``scan``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from schedule.base.errors import ScheduleError, ScheduleTypeError
from schedule.ir import arith
from schedule.ir.buffer import DeclBuffer
from schedule.ir.expr import Expr, IntImm, ProducerLoad
from schedule.ir.expr_like import ExprLike
from schedule.ir.itervar import IterVar, IterVarType
from schedule.operation.tensor_compute import region

_node = dataclass(frozen=True, eq=False, repr=False)


@_node
class Tensor:
    """Output *value_index* of operation *op*; ``A[i, j]`` reads one element.

    Two tensors are equal when they are the same output of the same operation.
    """

    op: Operation
    value_index: int = 0

    @property
    def shape(self) -> tuple[Expr, ...]:
        return self.op.output_shape(self.value_index)

    @property
    def dtype(self) -> str:
        return self.op.output_dtype(self.value_index)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def name(self) -> str:
        if self.op.num_outputs == 1:
            return self.op.name
        return f"{self.op.name}.v{self.value_index}"

    def __getitem__(self, indices: Any) -> Expr:
        if isinstance(indices, slice) or (
                isinstance(indices, tuple) and any(isinstance(i, slice) for i in indices)):
            return region(self, indices if isinstance(indices, tuple) else (indices,))  # type: ignore[return-value]
        if not isinstance(indices, tuple):
            indices = (indices,)
        if 0 < len(indices) < self.ndim:
            return TensorSlice(self, indices)  # type: ignore[return-value]
        return self(*indices)

    def __call__(self, *indices: Any) -> Expr:
        if len(indices) != self.ndim:
            raise ScheduleError(f"tensor '{self.name}' has {self.ndim} dimensions but was indexed "
                                f"with {len(indices)} indices")
        exprs = []
        for k, idx in enumerate(indices):
            try:
                exprs.append(arith.as_index(idx, f"tensor '{self.name}', index {k}"))
            except TypeError as err:
                raise ScheduleTypeError(str(err)) from None
        return ProducerLoad(self, tuple(exprs))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tensor):
            return NotImplemented
        return self.op is other.op and self.value_index == other.value_index

    def __iter__(self) -> Any:
        # Without this, iteration would go through __getitem__ forever.
        raise TypeError(f"tensor '{self.name}' is not iterable; index it (such as {self.name}[i]) or "
                        "use its .shape")

    def __hash__(self) -> int:
        return hash((id(self.op), self.value_index))

    # -- whole-tensor arithmetic (schedule.operation.tensor_ops): a new compute, as TVM's overloads --
    defers_arithmetic = True  # an expression's operator gives way to these
    __array_ufunc__ = None  # and so does NumPy's

    def __add__(self, other: Any) -> Any: return _binary("add", self, other)
    def __radd__(self, other: Any) -> Any: return _binary("add", other, self)
    def __sub__(self, other: Any) -> Any: return _binary("sub", self, other)
    def __rsub__(self, other: Any) -> Any: return _binary("sub", other, self)
    def __mul__(self, other: Any) -> Any: return _binary("mul", self, other)
    def __rmul__(self, other: Any) -> Any: return _binary("mul", other, self)
    def __truediv__(self, other: Any) -> Any: return _binary("truediv", self, other)
    def __rtruediv__(self, other: Any) -> Any: return _binary("truediv", other, self)
    def __floordiv__(self, other: Any) -> Any: return _binary("floordiv", self, other)
    def __rfloordiv__(self, other: Any) -> Any: return _binary("floordiv", other, self)
    def __mod__(self, other: Any) -> Any: return _binary("mod", self, other)
    def __rmod__(self, other: Any) -> Any: return _binary("mod", other, self)

    def astype(self, dtype: str) -> Any:
        """A compute of each element converted to *dtype* (TVM's ``Tensor.astype``)."""
        return _binary("astype", self, dtype)

    def __repr__(self) -> str:
        return f"Tensor(shape=[{', '.join(map(str, self.shape))}], op.name={self.op.name})"


#: Whole-tensor arithmetic builds a compute, which sits above this module:
#: ``schedule.operation.tensor_ops`` installs its builder here (the operation face imports it).
_tensor_binary: Any = None


def install_binary(builder: Any) -> None:
    """Give tensors their arithmetic operators: ``builder(kind, a, b)`` makes the new compute."""
    global _tensor_binary
    _tensor_binary = builder


def _binary(kind: str, a: Any, b: Any) -> Any:
    return _tensor_binary(kind, a, b)


class TensorSlice(ExprLike):
    """``A[i]`` of a multi-dimensional tensor: index it further (``A[i][j]``) to read an element."""

    def __init__(self, tensor: Tensor, indices: tuple[Any, ...]) -> None:
        self.tensor, self.indices = tensor, indices

    def __getitem__(self, more: Any) -> Any:
        return self.tensor[(*self.indices, *(more if isinstance(more, tuple) else (more,)))]

    def as_expr(self) -> Expr:
        return self.tensor(*self.indices)


class Operation:
    """Base of operations: immutable, hashed and compared by identity."""

    name: str
    tag: str

    @property
    def num_outputs(self) -> int:
        return 1

    def output(self, index: int) -> Tensor:
        if not 0 <= index < self.num_outputs:
            raise IndexError(f"operation '{self.name}' has {self.num_outputs} outputs, not {index + 1}")
        return Tensor(self, index)

    @property
    def root_iter_vars(self) -> list[IterVar]:
        return []

    @property
    def input_tensors(self) -> list[Tensor]:
        return []

    def annotated_axes(self) -> dict[IterVar, IterVarType]:
        """Root IterVars whose loops the operation itself makes parallel, vector or unrolled."""
        return {}

    def output_shape(self, index: int) -> tuple[Expr, ...]:
        raise NotImplementedError

    def output_dtype(self, index: int) -> str:
        raise NotImplementedError

    def replace_inputs(self, vmap: Mapping[Tensor, Tensor]) -> Operation:
        """This operation reading ``vmap[t]`` instead of each input ``t``; itself if none changes."""
        return self

    def bindings(self) -> dict[DeclBuffer, Tensor]:
        """The tensor each buffer this operation declares stands for (an extern's inputs and outputs)."""
        return {}

    def step_operations(self) -> list[Operation]:
        """The operations computed inside this one's loops at each of its steps (a scan's body)."""
        return []

    def aliases(self) -> dict[Tensor, Tensor]:
        """Tensors stored in this operation's outputs rather than in storage of their own."""
        return {}

    def __repr__(self) -> str:
        return f"{self.kind}({self.name}, {id(self):#x})"

    @property
    def kind(self) -> str:
        return type(self).__name__.removesuffix("Op").lower()


def _shape(shape: Any, what: str) -> tuple[Expr, ...]:
    if isinstance(shape, (Expr, int, float)) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise ScheduleTypeError(f"{what}: shape must be a tuple of integer expressions, not {shape!r}")
    dims = []
    for k, s in enumerate(shape):
        if isinstance(s, (float, np.floating)):
            # TVM accepts a Python float with an integral value (a tutorial's ``N / bn``).
            if not float(s).is_integer():
                raise ScheduleTypeError(f"{what}: shape[{k}] = {s} is not an integer")
            s = int(s)
        try:
            e = arith.as_index(s, f"{what}: shape[{k}]")
        except TypeError as err:
            raise ScheduleTypeError(str(err)) from None
        if isinstance(e, IntImm) and e.value < 0:
            raise ScheduleError(f"{what}: shape[{k}] = {e.value} is negative")
        dims.append(e)
    return tuple(dims)

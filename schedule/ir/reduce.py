"""Commutative reducers (``te.sum``, ``te.max``, ``te.min``, ``te.comm_reducer``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from schedule.base.checks import check_name
from schedule.base.errors import ScheduleError, ScheduleTypeError
from schedule.ir import arith
from schedule.ir.expr import CommReducer, Expr, FloatImm, IntImm, ProducerLoad, Reduce, Var
from schedule.ir.itervar import IterVar, IterVarType


class Reducer:
    """What :func:`comm_reducer` returns: call it as ``r(expr, axis=k, where=None, init=None)``.

    Called on plain expressions instead of an axis (``te.max(a, b)``), it combines them directly.
    """

    def __init__(self, fcombine: Callable[..., Any], fidentity: Callable[..., Any], name: str) -> None:
        check_name("comm_reducer", name)
        params = inspect.signature(fcombine).parameters
        if len(params) != 2:
            raise ScheduleError(f"comm_reducer '{name}': fcombine must take exactly two arguments")
        self._fcombine, self._fidentity, self.name = fcombine, fidentity, name
        self._lname, self._rname = list(params)

    def __call__(self, expr: Any, *args: Any, **kwargs: Any) -> Any:
        """``r(expr, axis, where=None, init=None)`` reduces; ``r(a, b, ...)`` combines values."""
        unknown = sorted(set(kwargs) - {"axis", "where", "init"})
        if unknown:
            raise ScheduleTypeError(f"{self.name}: unexpected keyword argument '{unknown[0]}' (expected axis=, "
                                    "where=, init=)")
        given = dict(zip(("axis", "where", "init"), args))
        for key in kwargs:
            if key in given:
                raise ScheduleTypeError(f"{self.name}: {key} is given both by position and by keyword")
        given.update(kwargs)
        axis = given.get("axis")
        if isinstance(axis, (IterVar, list, tuple)):
            if len(args) > 3:
                raise ScheduleError(f"{self.name}: unexpected extra arguments {args[3:]!r}")
            return self._make_reduce(expr, axis, given.get("where"), given.get("init"))
        if "axis" in kwargs:
            shown = axis.name if isinstance(axis, Var) else repr(axis)
            raise ScheduleError(f"{self.name}: axis={shown} is not a reduction axis; reduce over an "
                                "axis made with te.reduce_axis((begin, end))")
        if axis is None:
            raise ScheduleError(f"{self.name}: give the reduction axis (axis=k) or at least "
                                "two values to combine")
        values = [expr, *args, *(kwargs[k] for k in ("where", "init") if k in kwargs)]
        result = arith.convert(values[0])
        for v in values[1:]:
            result = self._fcombine(result, arith.convert(v))
        return result

    def _make_reduce(self, expr: Any, axis: Any, where: Any, init: Any) -> Any:
        multi = isinstance(expr, (list, tuple))
        sources = tuple(arith.convert(e) for e in (expr if multi else [expr]))
        axes = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
        for iv in axes:
            if not isinstance(iv, IterVar) or iv.iter_type != IterVarType.CommReduce:
                shown = iv.var.name if isinstance(iv, IterVar) else repr(iv)
                raise ScheduleError(f"{self.name}: axis '{shown}' is not a reduce_axis; "
                                    "create it with te.reduce_axis((begin, end))")
        condition = arith.const(True) if where is None else arith.convert(where)
        if condition.dtype != "bool":
            raise ScheduleError(f"{self.name}: where={condition} is {condition.dtype}, not bool")
        inits: tuple[Expr, ...] = ()
        if init is not None:
            inits = tuple(arith.convert(i) for i in (init if isinstance(init, (list, tuple)) else [init]))
            if len(inits) != len(sources):
                raise ScheduleError(f"{self.name}: {len(inits)} init values for {len(sources)} sources")
            for i in inits:
                if not isinstance(i, (ProducerLoad, IntImm, FloatImm)):
                    raise ScheduleError(f"{self.name}: init {i} must be a constant or a tensor element")
        dtypes = [s.dtype for s in sources]
        if multi:
            lhs = tuple(Var(f"{self._lname}_{i}", d) for i, d in enumerate(dtypes))
            rhs = tuple(Var(f"{self._rname}_{i}", d) for i, d in enumerate(dtypes))
            result = tuple(arith.convert(r) for r in self._fcombine(list(lhs), list(rhs)))
            identity = tuple(arith.convert(r) for r in self._fidentity(*dtypes))
        else:
            lhs, rhs = (Var(self._lname, dtypes[0]),), (Var(self._rname, dtypes[0]),)
            result = (arith.convert(self._fcombine(lhs[0], rhs[0])),)
            identity = (arith.convert(self._fidentity(dtypes[0])),)
        if len(result) != len(sources) or len(identity) != len(sources):
            raise ScheduleError(f"{self.name}: the combiner gives {len(result)} values and "
                                f"{len(identity)} identities for {len(sources)} sources")
        combiner = CommReducer(lhs, rhs, result, identity)
        outputs = tuple(Reduce(combiner, sources, axes, condition, i, inits) for i in range(len(sources)))
        return outputs if multi else outputs[0]


def comm_reducer(fcombine: Callable[..., Any], fidentity: Callable[..., Any],
                 name: str = "reduce") -> Reducer:
    """A reducer from a combiner ``fcombine(x, y)`` and an identity ``fidentity(dtype)``.

    For several values at once (argmax), *fcombine* takes and returns sequences and
    *fidentity* takes one dtype per value.
    """
    return Reducer(fcombine, fidentity, name)


sum = comm_reducer(lambda x, y: x + y, lambda t: arith.const(0, t), name="sum")  # noqa: A001
min = comm_reducer(lambda x, y: arith.min_expr(x, y), arith.max_value, name="min")  # noqa: A001
max = comm_reducer(lambda x, y: arith.max_expr(x, y), arith.min_value, name="max")  # noqa: A001

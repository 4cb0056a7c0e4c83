"""Reverse-mode differentiation of te computes (TVM's ``te.gradient``).

``gradient(output, inputs, head)`` gives, for each input, the tensor ``sum over o of
head[p, o] * d output[o] / d input[x]`` of shape ``head.shape[:-ndim(output)] + input.shape``;
without *head*, the identity over the output's elements (so each result is the whole Jacobian).
Adjoints flow from the output back through every compute on a path to the inputs, each stage
contributing ``adjoint[p, o] * d body(o) / d load * [load's index == x]`` summed over its
domain (and over its reduction: a sum's terms each count, a max's or min's term counts where
it is the result, a product's term as the product over it). An element-wise read of an input at
the stage's own indices contributes without that sum.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from schedule.base.errors import ScheduleError, ScheduleTypeError
from schedule.ir import arith, intrinsics
from schedule.ir.dtype import is_float
from schedule.ir.expr import (
    EQ,
    Add,
    Call,
    Cast,
    Div,
    Expr,
    FloatImm,
    IntImm,
    Max,
    Min,
    Mul,
    ProducerLoad,
    Reduce,
    Select,
    Sub,
    Var,
)
from schedule.ir.functor import distinct_post_order, substitute
from schedule.ir.itervar import reduce_axis
from schedule.ir.reduce import sum as te_sum
from schedule.operation.compute import ComputeOp, compute
from schedule.operation.placeholder import PlaceholderOp
from schedule.operation.tensor import Tensor


def gradient(output: Tensor, inputs: Sequence[Tensor] | Tensor, head: Tensor | None = None) -> list[Tensor]:
    """The adjoint of each of *inputs* (see the module docstring).

    :raises ScheduleTypeError: for arguments that are not tensors.
    :raises ScheduleError: for a path through an operation other than a compute, or a
        reduction it cannot differentiate.
    """
    ins = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    if not isinstance(output, Tensor) or not all(isinstance(t, Tensor) for t in ins):
        raise ScheduleTypeError("gradient: output and inputs must be tensors")
    if not is_float(output.dtype):
        raise ScheduleError(f"gradient: the output '{output.name}' is {output.dtype}; differentiate a float tensor")
    if head is None:
        head = _identity(output)
    elif tuple(map(str, head.shape[len(head.shape) - len(output.shape):])) != tuple(map(str, output.shape)):
        raise ScheduleError(f"gradient: head's shape must end with the output's {list(output.shape)}")
    prefix = tuple(head.shape[:len(head.shape) - len(output.shape)])
    order = _ops_between(output, ins)
    adjoints: dict[Tensor, list[Tensor]] = {output: [head]}
    for op in order:
        t = op.output(0)
        if t not in adjoints or isinstance(op, PlaceholderOp) or (t in ins and op is not output.op):
            continue  # an input: its adjoint is complete once its consumers are done
        if not isinstance(op, ComputeOp) or op.num_outputs != 1:
            raise ScheduleError(f"gradient: '{op.name}' is not a compute; only computes can be differentiated")
        adj = _total(adjoints[t], prefix, t)
        adjoints[t] = [adj]
        for x in dict.fromkeys(op.input_tensors):
            if x in adjoints or x.op in order or x in ins:
                adjoints.setdefault(x, []).append(_contribution(op, adj, x, prefix))
    return [_total(adjoints[x], prefix, x) if x in adjoints else _zeros(prefix, x) for x in ins]


def _identity(output: Tensor) -> Tensor:
    n = len(output.shape)

    def element(*i: Any) -> Expr:
        same = arith.all(*(arith.equal(a, b) for a, b in zip(i[:n], i[n:]))) if n else arith.const(True)
        return arith.select(same, arith.const(1.0, output.dtype), arith.const(0.0, output.dtype))

    return compute((*output.shape, *output.shape), element, name=f"{output.name}.identity")


def _zeros(prefix: tuple, x: Tensor) -> Tensor:
    return compute((*prefix, *x.shape), lambda *i: arith.const(0.0, x.dtype), name=f"{x.op.name}.grad")


def _total(parts: list[Tensor], prefix: tuple, t: Tensor) -> Tensor:
    if len(parts) == 1:
        return parts[0]
    return compute((*prefix, *t.shape), lambda *i: _sum_of([p(*i) for p in parts]), name=f"{t.op.name}.grad")


def _sum_of(values: list[Expr]) -> Expr:
    total = values[0]
    for v in values[1:]:
        total = arith.add(total, v)
    return total


def _ops_between(output: Tensor, inputs: list[Tensor]) -> list[Any]:
    """The operations on a path from *inputs* to *output*, consumers before producers."""
    targets = {t.op for t in inputs}
    order: list[Any] = []
    reaches: dict[Any, bool] = {}
    stack: list[tuple[Any, bool]] = [(output.op, False)]
    while stack:
        op, done = stack.pop()
        if done:
            reaches[op] = op in targets or any(reaches.get(t.op, False) for t in op.input_tensors)
            order.append(op)
            continue
        if op in reaches:
            continue
        reaches[op] = False
        stack.append((op, True))
        if op not in targets:
            stack.extend((t.op, False) for t in op.input_tensors if t.op not in reaches)
    return [op for op in reversed(order) if reaches[op]]


def _contribution(op: ComputeOp, adj: Tensor, x: Tensor, prefix: tuple) -> Tensor:
    """``sum over o (and k) of adj[p, o] * d body / d x[xi]``, as a compute over ``prefix + x.shape``."""
    body = op.body[0]
    axes = [iv.var for iv in op.axis]
    red = body if isinstance(body, Reduce) else None
    value = red.source[0] if red is not None else body
    scale = _reduction_scale(op, red, value) if red is not None else arith.const(1.0, value.dtype)
    loads = [e for e in distinct_post_order(value) if isinstance(e, ProducerLoad) and e.producer == x]
    if red is None and loads and all(len(e.indices) == len(axes) and all(a is b for a, b in zip(e.indices, axes))
                                     for e in loads) and \
            tuple(map(str, x.shape)) == tuple(map(str, op.output(0).shape)):
        # element-wise: no sum over the stage's domain
        def elementwise(*i: Any) -> Expr:
            vmap = dict(zip(axes, i[len(prefix):]))
            d = _sum_of([_diff(value, e) for e in loads])
            return arith.mul(adj(*i), arith.cast(adj.dtype, substitute(d, vmap)))
        return compute((*prefix, *x.shape), elementwise, name=f"{x.op.name}.grad.{op.name}")
    n = len(prefix)

    def element(*i: Any) -> Expr:
        p, xi = i[:n], i[n:]
        new_axes = [reduce_axis((0, iv.dom.extent), name=f"{iv.var.name}.o") for iv in op.axis]
        new_red = [reduce_axis((iv.dom.min, arith.add(iv.dom.min, iv.dom.extent)), name=f"{iv.var.name}.r")
                   for iv in (red.axis if red is not None else ())]
        vmap = {**dict(zip(axes, (a.var for a in new_axes))),
                **{iv.var: a.var for iv, a in zip(red.axis if red is not None else (), new_red)}}
        terms = []
        for e in loads:
            hit = arith.all(*(arith.equal(substitute(ix, vmap), v) for ix, v in zip(e.indices, xi)))
            d = substitute(arith.mul(_diff(value, e), scale), vmap)
            terms.append(arith.select(hit, arith.cast(adj.dtype, d), arith.const(0.0, adj.dtype)))
        total = _sum_of(terms) if terms else arith.const(0.0, adj.dtype)
        product = arith.mul(adj(*p, *(a.var for a in new_axes)), total)
        where = substitute(red.condition, vmap) if red is not None else None
        if where is not None and arith.value_of(where) != 1:
            product = arith.select(where, product, arith.const(0.0, adj.dtype))
        return te_sum(product, axis=[*new_axes, *new_red])

    return compute((*prefix, *x.shape), element, name=f"{x.op.name}.grad.{op.name}")


def _reduction_scale(op: ComputeOp, red: Reduce, value: Expr) -> Expr:
    """How one term of the reduction moves its result: 1 for a sum, [term is the result] for a
    max or min, the result over the term for a product."""
    lhs, rhs = red.combiner.lhs[0], red.combiner.rhs[0]
    result = red.combiner.result[0]
    out = ProducerLoad(op.output(0), tuple(iv.var for iv in op.axis))
    one, zero = arith.const(1.0, value.dtype), arith.const(0.0, value.dtype)
    if any(isinstance(e, ProducerLoad) for v in red.init for e in distinct_post_order(v)):
        raise ScheduleError(f"gradient: stage '{op.name}' starts its reduction from a read of a tensor; "
                            "differentiate a reduction with a constant init")
    if len(red.source) != 1:
        raise ScheduleError(f"gradient: stage '{op.name}' reduces several values at once; differentiate a "
                            "single-valued reduction")
    if _is(result, Add, lhs, rhs):
        return one
    if _is(result, Max, lhs, rhs) or _is(result, Min, lhs, rhs):
        return arith.select(EQ(value, out), one, zero)
    if _is(result, Mul, lhs, rhs):
        return arith.true_div(out, value)
    raise ScheduleError(f"gradient: stage '{op.name}' reduces with {result}; sums, maxima, minima and products "
                        "can be differentiated")


def _is(e: Expr, kind: type, a: Var, b: Var) -> bool:
    return isinstance(e, kind) and ((e.a is a and e.b is b) or (e.a is b and e.b is a))  # type: ignore[attr-defined]


def _diff(e: Expr, target: ProducerLoad) -> Expr:
    """d e / d target, where *target* is one read node of *e* (other reads are constants)."""
    done: dict[int, Expr] = {}
    for x in distinct_post_order(e):
        done[id(x)] = _rule(x, target, done)
    return done[id(e)]


def _rule(x: Expr, target: ProducerLoad, done: dict[int, Expr]) -> Expr:
    zero = arith.const(0.0, x.dtype) if is_float(x.dtype) else arith.const(0, x.dtype)
    if x is target:
        return arith.const(1.0, x.dtype)
    if isinstance(x, (ProducerLoad, Var, IntImm, FloatImm)) or not is_float(x.dtype):
        return zero
    d = lambda y: done[id(y)]  # noqa: E731
    if isinstance(x, Add):
        return arith.add(d(x.a), d(x.b))
    if isinstance(x, Sub):
        return arith.sub(d(x.a), d(x.b))
    if isinstance(x, Mul):
        return arith.add(arith.mul(d(x.a), x.b), arith.mul(x.a, d(x.b)))
    if isinstance(x, Div):
        return arith.true_div(arith.sub(arith.mul(d(x.a), x.b), arith.mul(x.a, d(x.b))), arith.mul(x.b, x.b))
    if isinstance(x, (Min, Max)):
        pick = arith.le(x.a, x.b) if isinstance(x, Min) else arith.ge(x.a, x.b)
        return arith.select(pick, d(x.a), d(x.b))
    if isinstance(x, Select):
        return arith.select(x.condition, d(x.true_value), d(x.false_value))
    if isinstance(x, Cast):
        return arith.cast(x.dtype, d(x.value)) if is_float(x.value.dtype) else zero
    if isinstance(x, Call):
        return _call_rule(x, d, zero)
    raise ScheduleError(f"gradient: cannot differentiate {x}")


def _call_rule(x: Call, d: Any, zero: Expr) -> Expr:
    name, args = x.name, x.args
    if name == "tvm_if_then_else":
        return arith.select(args[0], d(args[1]), d(args[2]))
    if name in ("floor", "ceil", "trunc", "round"):
        return zero
    a = args[0]
    one = arith.const(1.0, x.dtype)
    rules = {
        "exp": lambda: x, "fast_exp": lambda: x, "log": lambda: arith.true_div(one, a),
        "sqrt": lambda: arith.true_div(arith.const(0.5, x.dtype), x),
        "fast_log": lambda: arith.true_div(one, a),
        "tanh": lambda: arith.sub(one, arith.mul(x, x)), "sigmoid": lambda: arith.mul(x, arith.sub(one, x)),
        "fast_tanh": lambda: arith.sub(one, arith.mul(x, x)),
        "fast_sigmoid": lambda: arith.mul(x, arith.sub(one, x)),
        "erf": lambda: arith.mul(arith.const(2 / math.sqrt(math.pi), x.dtype),
                                 intrinsics.exp(arith.neg(arith.mul(a, a)))),
        "fast_erf": lambda: arith.mul(arith.const(2 / math.sqrt(math.pi), x.dtype),
                                      intrinsics.fast_exp(arith.neg(arith.mul(a, a)))),
        "sin": lambda: intrinsics.cos(a), "cos": lambda: arith.neg(intrinsics.sin(a)),
        "fabs": lambda: arith.select(arith.ge(a, arith.const(0.0, x.dtype)), one, arith.neg(one)),
    }
    if name in rules:
        return arith.mul(d(a), rules[name]())
    if name == "pow":  # d(a^b) = b a^(b-1) da + a^b log(a) db
        b = args[1]
        first = arith.mul(d(a), arith.mul(b, intrinsics.power(a, arith.sub(b, one))))
        second = arith.mul(d(b), arith.mul(x, intrinsics.log(a))) if arith.value_of(d(b)) != 0 else zero
        return arith.add(first, second)
    raise ScheduleError(f"gradient: cannot differentiate the call {name}")

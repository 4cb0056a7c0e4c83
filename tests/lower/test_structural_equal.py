"""Structural equality as TVM defines it, over statements and functions: names do not matter,
variables and buffers defined inside the trees pair at their definitions, free variables
pair only with ``map_free_vars``, and the first difference is named by its path."""

from __future__ import annotations

import warnings

import pytest

import schedule as te
import tebound.tvm as tvm
from lower import lower
from lower.ir.stmt import Allocate, Buffer, Evaluate, For, ForKind, LetStmt, Load, Store, seq
from lower.ir.structural_equal import first_difference, structural_equal
from schedule import arith
from schedule.ir.expr import Var


def _lowered(factor: int, name: str = "A", exact: bool = True):
    A = te.placeholder((64,), name=name)
    B = te.compute((64,), lambda i: A[i] * 2, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=factor)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lower(s, [A, B], exact=exact)


def test_two_lowerings_of_one_schedule_are_equal_whatever_their_names():
    assert structural_equal(_lowered(8), _lowered(8))
    assert structural_equal(_lowered(8), _lowered(8, name="X"))
    difference = first_difference(_lowered(8), _lowered(16))
    assert difference is not None
    assert (difference.lhs_path, str(difference.lhs), str(difference.rhs)) == (
        "<root>.body.body.extent.value", "8", "4")


def _loop(var: Var, index, buf: Buffer) -> For:
    return For(var, arith.const(0), arith.const(16), ForKind.SERIAL,
               Store(buf, arith.const(1.0, "float32"), index))


def test_loop_variables_pair_at_their_loops_and_free_ones_only_with_map_free_vars():
    buf = Buffer("B", "float32", (arith.const(16),))
    i, j, k = Var("i"), Var("j"), Var("k")
    assert structural_equal(_loop(i, i, buf), _loop(j, j, buf))
    # k is free on the right, where the left uses its loop's variable.
    difference = first_difference(_loop(i, i, buf), _loop(j, k, buf), map_free_vars=True)
    assert difference is not None and difference.lhs_path == "<root>.body.index"
    x, y, z = Var("x"), Var("y"), Var("z")
    assert not structural_equal(x + 1, y + 1)
    assert structural_equal(x + 1, y + 1, map_free_vars=True)
    assert not structural_equal(x + x, y + z, map_free_vars=True)  # one to one
    assert not structural_equal(x + y, z + z, map_free_vars=True)  # both ways


def test_allocations_and_lets_define_what_their_bodies_use():
    def program(dtype: str, extent: int, name: str):
        buf = Buffer(name, dtype, (arith.const(extent),), "local")
        v = Var("v")
        body = LetStmt(v, arith.const(3), Store(buf, arith.cast(dtype, v), arith.const(0)))
        return Allocate(buf, seq(body, Evaluate(Load(buf, arith.const(0)))))
    assert structural_equal(program("float32", 4, "T"), program("float32", 4, "U"))
    difference = first_difference(program("float32", 4, "T"), program("float32", 8, "T"))
    assert difference.lhs_path == "<root>.buffer.shape.value"
    # A flat buffer is its storage: 4 x 4 elements are 16, as TVM's flattened buffer has them.
    def read_first(shape):
        buf = Buffer("T", "float32", tuple(arith.const(d) for d in shape), "local")
        return Allocate(buf, Evaluate(Load(buf, arith.const(0))))
    assert structural_equal(read_first((4, 4)), read_first((16,)))
    assert not structural_equal(read_first((4, 4)), read_first((4, 8)))
    difference = first_difference(program("float32", 4, "T"), program("int32", 4, "T"))
    assert difference.lhs_path == "<root>.buffer.dtype"


def test_a_calls_name_is_what_it_calls():
    assert not structural_equal(te.call_extern("float32", "foo", 1), te.call_extern("float32", "bar", 1))
    assert structural_equal(te.call_extern("float32", "foo", 1), te.call_extern("float32", "foo", 1))


def test_tvm_modules_compare_and_the_assertion_names_the_first_difference():
    def module(factor: int):
        A = tvm.te.placeholder((64,), name="A")
        B = tvm.te.compute((64,), lambda i: A[i] + 1, name="B")
        s = tvm.te.create_schedule(B.op)
        s[B].split(B.op.axis[0], factor=factor)
        return tvm.lower(s, [A, B], simple_mode=True)
    tvm.ir.assert_structural_equal(module(8), module(8))
    tvm.ir.assert_structural_equal(module(8)["main"], module(8)["main"])
    with pytest.raises(ValueError) as err:
        tvm.ir.assert_structural_equal(module(8), module(16))
    lines = str(err.value).splitlines()
    assert lines[0] == "StructuralEqual check failed, caused by lhs at <root>.body.extent.value:"
    assert lines[1:] == ["  8", "and rhs at <root>.body.extent.value:", "  4"]


def test_a_thousand_statements_deep_compare_at_the_default_recursion_limit():
    buf = Buffer("B", "float32", (arith.const(1),))

    def nest(depth: int, last: float):
        body = Store(buf, arith.const(last, "float32"), arith.const(0))
        for _ in range(depth):
            body = For(Var("i"), arith.const(0), arith.const(1), ForKind.SERIAL, body)
        return body
    assert structural_equal(nest(1000, 1.0), nest(1000, 1.0))
    difference = first_difference(nest(1000, 1.0), nest(1000, 2.0))
    assert difference.lhs_path == "<root>" + ".body" * 1000 + ".value" and str(difference.lhs) == "1.000000f"

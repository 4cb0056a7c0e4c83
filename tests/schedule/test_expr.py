"""Expression nodes: dtype promotion, constant folding, printing, equality, traversal."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import schedule as te
from schedule.ir.evaluate import evaluate


@pytest.fixture
def x():
    return te.var("x")


# --------------------------------------------------------------------------- dtypes

def test_python_int_next_to_float32_becomes_float32_constant():
    A = te.placeholder((4,), name="A")
    e = A[0] + 2
    assert e.dtype == "float32"
    assert isinstance(e.b, te.FloatImm) and e.b.dtype == "float32" and e.b.value == 2.0
    assert str(e) == "(A(0) + 2.000000f)"


def test_int32_var_times_python_float_casts_the_var():
    x = te.var("x")
    e = x * 1.5
    assert e.dtype == "float32"
    assert isinstance(e.a, te.Cast) and e.a.dtype == "float32" and e.a.value is x
    assert str(e) == "(float32(x)*1.500000f)"


@pytest.mark.parametrize(("a", "b", "result"), [
    ("int32", "int64", "int64"), ("int64", "int32", "int64"), ("float32", "float64", "float64"),
    ("int64", "float32", "float32"), ("bool", "int32", "int32"), ("uint32", "int32", "uint32"),
    ("int8", "uint16", "uint16"), ("float16", "int64", "float16"),
])
def test_binary_operands_meet_at_tvms_common_type(a, b, result):
    e = te.var("p", a) + te.var("q", b)
    assert e.dtype == result
    assert e.a.dtype == e.b.dtype == result


def test_python_int_next_to_int64_var_is_an_int64_constant():
    n = te.var("n", "int64")
    e = n + 3
    assert e.dtype == "int64" and e.b.dtype == "int64"
    assert str(e) == "(n + (int64)3)"


def test_large_python_int_becomes_int64():
    assert te.const(2**40).dtype == "int64"
    assert te.const(2**31 - 1).dtype == "int32"


def test_comparisons_and_logic_are_bool(x):
    c = (x < 3) & (x >= 0)
    assert c.dtype == "bool"
    assert str(c) == "((x < 3) && (x >= 0))"
    assert str(~(x < 3)) == "!(x < 3)"


def test_and_or_not_on_integers_are_bit_operations_as_in_tvm(x):
    assert str(x & 1) == "bitwise_and(x, 1)" and str(x | 6) == "bitwise_or(x, 6)"
    assert str(~x) == "bitwise_not(x)" and str(x ^ 3) == "bitwise_xor(x, 3)"
    assert str(x >> 1) == "shift_right(x, 1)" and str(1 << x) == "shift_left(1, x)"
    assert (te.const(12) & 10).value == 8 and (te.const(-8) >> 1).value == -4 and (~te.const(5)).value == -6
    with pytest.raises(TypeError, match="bool"):
        _ = (x < 3) & 1
    with pytest.raises(TypeError, match="bit operations need integers"):
        _ = te.const(1.5) >> 1


def test_integer_true_division_is_refused(x):
    with pytest.raises(TypeError, match="'/' on integers"):
        _ = x / 2


def test_float_division_is_allowed():
    y = te.var("y", "float32")
    assert str(y / 2) == "(y/2.000000f)"


# --------------------------------------------------------------------------- folding

@pytest.mark.parametrize(("build", "text"), [
    (lambda x: x + 0, "x"), (lambda x: 0 + x, "x"), (lambda x: x - 0, "x"), (lambda x: x * 1, "x"),
    (lambda x: 1 * x, "x"), (lambda x: x * 0, "0"), (lambda x: x // 1, "x"), (lambda x: x % 1, "0"),
    (lambda x: te.const(3) + 4, "7"), (lambda x: te.floordiv(-7, 2), "-4"),
    (lambda x: te.floormod(-7, 2), "1"), (lambda x: te.truncdiv(-7, 2), "-3"),
    (lambda x: te.truncmod(-7, 2), "-1"), (lambda x: te.min(te.const(3), 5), "3"),
    (lambda x: te.max(x, 5), "max(x, 5)"), (lambda x: -x, "(x*-1)"),
    (lambda x: te.const(2) < 3, "(bool)1"), (lambda x: te.all(x < 1, te.const(True)), "(x < 1)"),
    (lambda x: te.any(x < 1, te.const(True)), "(bool)1"),
    (lambda x: te.if_then_else(te.const(False), x, 1), "1"),
])
def test_construction_folds_constants_and_identities(x, build, text):
    assert str(build(x)) == text


def test_division_by_constant_zero_is_refused(x):
    with pytest.raises(ValueError, match="division by the constant zero"):
        te.floordiv(x, 0)


# --------------------------------------------------------------------------- printing

def test_printer_matches_the_legacy_format(x):
    y = te.var("y")
    assert str((x * 4 + y) - 1) == "(((x*4) + y) - 1)"
    assert str(te.floordiv(x, 4) + te.floormod(y, 3)) == "(floordiv(x, 4) + floormod(y, 3))"
    assert str(te.select(x < y, x, y)) == "select((x < y), x, y)"
    assert str(te.truncmod(x, y)) == "(x % y)"
    assert str(te.const(16, "int64")) == "(int64)16"
    assert str(te.const(3.0, "float64")) == "3.000000"
    assert str(te.exp(te.var("f", "float32"))) == "exp(f)"
    assert repr(x + 1) == "Add((x + 1))"


# --------------------------------------------------------------------------- equality

def test_eq_builds_a_node_whose_bool_is_structural_equality(x):
    e = (x + 1) == (x + 1)
    assert isinstance(e, te.EQ)
    assert bool(e)
    assert not bool((x + 1) == (x + 2))
    assert bool((x + 1) != (x + 2))


def test_variables_compare_by_identity():
    a, b = te.var("n"), te.var("n")
    assert not bool(a == b)
    assert bool(a == a)
    assert len({a: 1, b: 2}) == 2


def test_structurally_equal_trees_hash_alike(x):
    assert hash(x * 4 + 1) == hash(x * 4 + 1)
    assert len({x * 4 + 1, x * 4 + 1, x * 4 + 2}) == 2


def test_bool_of_other_expressions_raises(x):
    with pytest.raises(TypeError, match="te.all / te.any"):
        bool(x < 3)
    with pytest.raises(TypeError):
        if x + 1:
            pass
    # a constant is a Python bool, as TVM's IntImm is
    assert bool(te.const(1)) and not bool(te.const(0))


def test_constants_convert_to_python_numbers(x):
    assert int(te.const(7)) == 7 and te.const(7).value == 7
    assert float(te.const(2.5)) == 2.5
    assert list(range(te.const(3))) == [0, 1, 2]
    with pytest.raises(TypeError, match="non-constant"):
        int(x + 1)


def test_reducers_compare_up_to_parameter_names():
    k = te.reduce_axis((0, 8), name="k")
    A = te.placeholder((8,), name="A")
    r1, r2 = te.sum(A[k], axis=k), te.sum(A[k], axis=k)
    assert r1.combiner is not r2.combiner
    assert te.structural_equal(r1, r2)
    assert not te.structural_equal(r1, te.max(A[k], axis=k))


# --------------------------------------------------------------------------- traversal

def test_substitute_replaces_variables_and_keeps_untouched_nodes(x):
    y = te.var("y")
    e = x * 4 + y
    out = te.substitute(e, {x: y + 1})
    assert str(out) == "(((y + 1)*4) + y)"
    assert te.substitute(e, {te.var("z"): 1}) is e


def test_mutator_returns_the_same_object_when_nothing_changes(x):
    e = te.max(x * 2, x + 1)
    assert te.ExprMutator()(e) is e


def test_post_order_visit_sees_children_first(x):
    seen = []
    te.post_order_visit(x + 1, lambda n: seen.append(str(n)))
    assert seen == ["x", "1", "(x + 1)"]


def test_raw_nodes_check_their_operands(x):
    with pytest.raises(TypeError, match="dtypes differ"):
        te.Add(x, te.const(1.0))
    with pytest.raises(ValueError, match="does not fit"):
        te.IntImm("int32", 2**31)


# --------------------------------------------------------------------------- soundness of folding

small = st.integers(-20, 20)


@given(small, small, st.sampled_from(["add", "sub", "mul", "floordiv", "floormod", "truncdiv",
                                      "truncmod", "min", "max"]))
def test_folded_constants_equal_the_evaluated_expression(a, b, op):
    if op in ("floordiv", "floormod", "truncdiv", "truncmod") and b == 0:
        return
    fn = {"add": lambda p, q: p + q, "sub": lambda p, q: p - q, "mul": lambda p, q: p * q,
          "floordiv": te.floordiv, "floormod": te.floormod, "truncdiv": te.truncdiv,
          "truncmod": te.truncmod, "min": te.min, "max": te.max}[op]
    x, y = te.var("x"), te.var("y")
    folded = fn(te.const(a), te.const(b))
    assert isinstance(folded, te.IntImm)
    assert folded.value == evaluate(fn(x, y), {x: a, y: b})

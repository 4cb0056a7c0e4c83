"""Tensors and operations: placeholder, compute (multi-output, reductions), extern."""

from __future__ import annotations

import pytest

import schedule as te
from schedule.ir.evaluate import evaluate


def test_compute_axes_take_the_lambda_parameter_names_and_the_shape():
    n = te.var("n")
    A = te.placeholder((n, 8), name="A")
    B = te.compute((n, 8), lambda row, col: A[row, col] * 2, name="B")
    assert [iv.name for iv in B.op.axis] == ["row", "col"]
    assert B.op.axis[0].dom.extent is n and int(B.op.axis[1].dom.extent) == 8
    assert B.shape[0] is n and B.dtype == "float32" and B.name == "B"
    assert B.op.input_tensors == [A]
    assert B.op.reduce_axis == ()


def test_varargs_fcompute_names_axes_i0_i1():
    A = te.placeholder((2, 3, 4), name="A")
    B = te.compute(A.shape, lambda *idx: A[idx] + 1, name="B")
    assert [iv.name for iv in B.op.axis] == ["i0", "i1", "i2"]


def test_reduction_gives_the_compute_its_reduce_axis(matmul):
    A, B, C = matmul
    k = C.op.reduce_axis[0]
    assert k.name == "k" and k.iter_type == te.IterVarType.CommReduce
    assert C.op.root_iter_vars == [*C.op.axis, k]
    assert C.op.input_tensors == [A, B]


def test_input_tensors_are_in_order_of_first_appearance_in_post_order():
    A = te.placeholder((8,), name="A")
    Idx = te.placeholder((8,), dtype="int32", name="Idx")
    B = te.placeholder((8,), name="B")
    C = te.compute((8,), lambda i: B[i] + A[Idx[i]] + B[i], name="C")
    assert C.op.input_tensors == [B, Idx, A]


def test_multi_output_compute_returns_a_list_of_tensors():
    A = te.placeholder((4,), name="A")
    outs = te.compute((4,), lambda i: (A[i] + 1, A[i] * 2), name="T")
    assert isinstance(outs, list) and len(outs) == 2
    t0, t1 = outs
    assert t0.op is t1.op and (t0.value_index, t1.value_index) == (0, 1)
    assert (t0.name, t1.name) == ("T.v0", "T.v1")
    assert t0 == t0.op.output(0) and t0 != t1


def test_argmax_style_multi_value_reduction():
    A = te.placeholder((6,), dtype="int32", name="A")
    k = te.reduce_axis((0, 6), name="k")

    def fcombine(x, y):
        take_y = y[1] > x[1]
        return te.select(take_y, y[0], x[0]), te.select(take_y, y[1], x[1])

    argmax = te.comm_reducer(fcombine, lambda t0, t1: (te.const(-1, t0), te.min_value(t1)), name="argmax")
    idx, val = te.compute((1,), lambda i: argmax((k, A[k]), axis=k), name="T")
    assert idx.op.num_outputs == 2
    data = [3, 9, 2, 9, 1, 0]
    load = lambda t, ix: data[ix[0]]  # noqa: E731
    assert evaluate(idx.op.body[0], {idx.op.axis[0].var: 0}, load) == 1
    assert evaluate(idx.op.body[1], {idx.op.axis[0].var: 0}, load) == 9


def test_te_max_of_two_expressions_is_a_max_node():
    x, y = te.var("x"), te.var("y")
    assert isinstance(te.max(x, y), te.Max)
    assert str(te.min(x, y, 3)) == "min(min(x, y), 3)"


def test_zero_dimensional_tensor_is_indexed_with_an_empty_tuple():
    A = te.placeholder((), name="A")
    B = te.compute((), lambda: A[()] + 1, name="B")
    assert B.shape == () and str(B.op.body[0]) == "(A() + 1.000000f)"


def test_extern_reads_whole_inputs():
    A = te.placeholder((4, 4), name="A")
    C = te.extern((4, 4), [A], lambda ins, outs: te.call_packed("f", ins[0], outs[0]), name="C")
    assert isinstance(C.op, te.ExternOp) and C.op.input_tensors == [A]
    assert C.dtype == "float32" and C.op.root_iter_vars == []
    assert str(C.op.body) == 'tvm_call_packed("f", A_buf, C)'


def test_extern_fcompute_must_return_the_call():
    A = te.placeholder((4, 4), name="A")
    with pytest.raises(TypeError, match="fcompute must return the call"):
        te.extern((4, 4), [A], lambda ins, outs: None, name="C")


# --------------------------------------------------------------------------- bad input

def test_wrong_number_of_indices_is_refused():
    A = te.placeholder((4, 4), name="A")
    with pytest.raises(te.ScheduleError, match="tensor 'A' has 2 dimensions but was indexed with 3"):
        _ = A[1, 2, 3]
    with pytest.raises(te.ScheduleError, match="tensor 'A' has 2 dimensions but was indexed with 1"):
        _ = A[1] + 1
    with pytest.raises(te.ScheduleError, match="indexed with 1"):
        te.compute((4,), lambda i: A[i], name="B")


def test_chained_indexing_reads_one_element():
    A = te.placeholder((4, 4), name="A")
    assert str(A[1][2] * 2) == "(A(1, 2)*2.000000f)"


@pytest.mark.parametrize("index", [1.5, "i", te.const(2.0), te.const(True), None])
def test_non_integer_index_is_refused(index):
    A = te.placeholder((4,), name="A")
    with pytest.raises(te.ScheduleError, match="tensor 'A', index 0") as err:
        _ = A[index]
    assert isinstance(err.value, TypeError)


def test_a_slice_is_only_a_tensor_intrinsic_argument():
    A = te.placeholder((4,), name="A")
    with pytest.raises(TypeError, match=r"the tensor slice A\[1:3\] is only an argument of a tensor intrinsic"):
        _ = A[1:3] + 1
    with pytest.raises(TypeError, match=r"cannot use a TensorRegion \(A\[1:3\]\) as an expression"):
        te.compute((2,), lambda i: A[1:3])
    with pytest.raises(TypeError, match="a slice with a step"):
        _ = A[0:4:2]


def test_fcompute_arity_must_match_the_shape():
    A = te.placeholder((4, 4), name="A")
    with pytest.raises(te.ScheduleError, match="fcompute takes 1 index arguments but the shape has 2"):
        te.compute((4, 4), lambda i: A[i, 0], name="B")
    with pytest.raises(te.ScheduleError, match="takes 3 index arguments"):
        te.compute((4, 4), lambda i, j, k: A[i, j], name="B")
    with pytest.raises(te.ScheduleError, match="plain positional"):
        te.compute((4,), lambda i, j=0: A[i, j], name="B")


def test_reduction_below_the_top_level_is_refused():
    A = te.placeholder((4, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    with pytest.raises(te.ScheduleError, match="reduction below the top level"):
        te.compute((4,), lambda i: te.sum(A[i, k], axis=k) + 1, name="B")


def test_reduction_over_a_data_axis_is_refused():
    A = te.placeholder((4,), name="A")
    with pytest.raises(te.ScheduleError, match="axis 'i' is not a reduce_axis"):
        te.compute((4,), lambda i: te.sum(A[i], axis=te.compute((4,), lambda i: i).op.axis[0]))


@pytest.mark.parametrize("shape", [(4.5, 2), ("n",), (-1, 4)])
def test_bad_shapes_are_refused(shape):
    with pytest.raises(te.ScheduleError):
        te.placeholder(shape, name="A")


def test_integral_float_shapes_are_integers_as_in_tvm():
    N, bn = 16, 4
    A = te.placeholder((N / bn, bn), name="A")  # TVM's GEMM tutorial writes shapes this way
    assert [int(e) for e in A.shape] == [4, 4]
    assert all(e.dtype == "int32" for e in A.shape)
    with pytest.raises(TypeError, match=r"shape\[0\] = 2.5 is not an integer"):
        te.compute((2.5,), lambda i: i, name="B")


def test_bad_dtype_is_refused():
    with pytest.raises(ValueError, match="unknown dtype 'float8'"):
        te.placeholder((4,), dtype="float8", name="A")


def test_reduction_over_a_data_axis_given_as_axis_keyword_is_refused():
    A = te.placeholder((4, 4), name="A")
    with pytest.raises(te.ScheduleError, match="sum: axis=i is not a reduction axis"):
        te.compute((4,), lambda i: te.sum(A[i, 0], axis=i), name="B")
    # Positionally, two values combine, as TVM's reducers do: te.sum(a, b) is a + b.
    B = te.compute((4,), lambda i: te.sum(A[i, 0], A[i, 1]), name="B")
    assert str(B.op.body[0]) == "(A(i, 0) + A(i, 1))"


def test_a_reduction_axis_outside_a_reduction_is_refused():
    A = te.placeholder((4, 4), name="A")
    k = te.reduce_axis((0, 4), name="k")
    with pytest.raises(te.ScheduleError, match="compute 'B': the reduction axis 'k' is used outside a reduction"):
        te.compute((4,), lambda i: A[i, k], name="B")
    with pytest.raises(te.ScheduleError, match="compute 'C': the reduction axis 'k'"):
        te.compute((4,), lambda i: A[i, 0] + k, name="C")
    C = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="C")
    assert C.op.reduce_axis == (k,)


def test_an_empty_reduction_range_is_refused():
    with pytest.raises(te.ScheduleError, match=r"reduce_axis 'k': the range \(5, 2\) ends before it begins"):
        te.reduce_axis((5, 2), name="k")
    assert int(te.reduce_axis((3, 3), name="k").dom.extent) == 0


@pytest.mark.parametrize("make", [
    lambda: te.placeholder((4,), name=3),
    lambda: te.compute((4,), lambda i: i, name=None),
    lambda: te.reduce_axis((0, 4), name=1.5),
    lambda: te.var(7),
    lambda: te.thread_axis("threadIdx.x", name=2),
    lambda: te.comm_reducer(lambda x, y: x + y, lambda t: te.const(0, t), name=["sum"]),
])
def test_names_must_be_strings(make):
    with pytest.raises(TypeError, match="name must be a string"):
        make()


def test_a_tensor_is_not_iterable():
    A = te.placeholder((4,), name="A")
    with pytest.raises(TypeError, match="tensor 'A' is not iterable"):
        list(A)

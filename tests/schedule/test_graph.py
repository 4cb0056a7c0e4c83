"""Read graph, feed graph, stage order, and the document's attach paths."""

from __future__ import annotations

import networkx as nx
import pytest

import schedule as te


def names(ivs):
    return [iv.name for iv in ivs]


def test_read_graph_and_feed_graph(chain):
    A, B, C = chain
    g = te.read_graph([C.op])
    assert isinstance(g, nx.DiGraph)
    assert set(g.edges) == {(A.op, B.op), (B.op, C.op)}
    assert g.edges[A.op, B.op]["tensors"] == [A]
    assert te.feed_graph(g) == {A: [B.op], B: [C.op]}


def test_stage_order_is_post_dfs_with_inputs_in_read_order():
    A = te.placeholder((8,), name="A")
    B = te.placeholder((8,), name="B")
    X = te.compute((8,), lambda i: B[i] * 2, name="X")
    Y = te.compute((8,), lambda i: A[i] + X[i], name="Y")
    Z = te.compute((8,), lambda i: X[i] - Y[i], name="Z")
    s = te.create_schedule(Z.op)
    assert [st.name for st in s.stages] == ["B", "X", "A", "Y", "Z"]
    assert [st.is_output for st in s.stages] == [False] * 4 + [True]


def test_several_outputs_keep_their_order():
    A = te.placeholder((8,), name="A")
    P = te.compute((8,), lambda i: A[i] + 1, name="P")
    Q = te.compute((8,), lambda i: A[i] * 2, name="Q")
    s = te.create_schedule([Q.op, P.op])
    assert [st.name for st in s.stages] == ["A", "Q", "P"]


def test_deep_chain_does_not_hit_the_recursion_limit():
    def plus_one(src):
        return lambda i: src[i] + 1

    T = te.placeholder((4,), name="T0")
    for k in range(3000):
        T = te.compute((4,), plus_one(T), name=f"T{k + 1}")
    s = te.create_schedule(T.op)
    assert len(s.stages) == 3001 and s.stages[0].name == "T0"


# --------------------------------------------------------------------------- attach paths

def test_example_1_no_attachment_gives_an_empty_path():
    C = te.compute((5, 16), lambda i, j: te.const(5, "int32"), name="C")
    D = te.compute((5, 16), lambda i, j: C[i, j] * 2, name="D")
    s = te.create_schedule(D.op)
    assert te.attach_path(s[C]) == []


@pytest.mark.parametrize(("axis", "expected"), [(1, ["j", "i"]), (0, ["i"])])
def test_examples_2_and_3_attach_at_j_or_i(axis, expected):
    C = te.compute((5, 16), lambda i, j: te.const(5, "int32"), name="C")
    D = te.compute((5, 16), lambda i, j: C[i, j] * 2, name="D")
    s = te.create_schedule(D.op)
    s[C].compute_at(s[D], D.op.axis[axis])
    assert names(te.attach_path(s[C])) == expected


def test_example_4_path_includes_loops_the_stage_does_not_use():
    C = te.compute((5, 16), lambda i, j: te.const(5, "int32"), name="C")
    D = te.compute((4, 5, 16), lambda di, dj, dk: C[dj, dk] * 2, name="D")
    s = te.create_schedule(D.op)
    s[C].compute_at(s[D], D.op.axis[2])
    assert names(te.attach_path(s[C])) == ["dk", "dj", "di"]


def test_example_5_attach_after_split():
    C = te.compute((5, 16), lambda i, j: te.const(5, "int32"), name="C")
    D = te.compute((5, 16), lambda i, j: C[i, j] * 2, name="D")
    s = te.create_schedule(D.op)
    d_o, d_i = s[D].split(D.op.axis[1], factor=8)
    s[C].compute_at(s[D], d_i)
    assert te.attach_path(s[C]) == [d_i, d_o, D.op.axis[0]]


def test_c_at_d_at_e_chains_the_paths(example_cde):
    C, D, E = example_cde
    s = te.create_schedule(E.op)
    s[C].compute_at(s[D], D.op.axis[1])
    s[D].compute_at(s[E], E.op.axis[1])
    paths = te.create_attach_path(s)
    assert names(paths[s[C]]) == ["dj", "di", "ej", "ei"]
    assert names(paths[s[D]]) == ["ej", "ei"]
    assert paths[s[E]] == []


def test_only_d_attached_leaves_c_at_the_root(example_cde):
    C, D, E = example_cde
    s = te.create_schedule(E.op)
    s[D].compute_at(s[E], E.op.axis[1])
    assert te.attach_path(s[C]) == [] and names(te.attach_path(s[D])) == ["ej", "ei"]


def test_attach_path_follows_a_later_split_of_the_attach_point(example_cde):
    C, D, E = example_cde
    s = te.create_schedule(E.op)
    s[D].compute_at(s[E], E.op.axis[1])
    eo, ei_ = s[E].split(E.op.axis[1], factor=4)
    assert te.attach_path(s[D]) == [ei_, eo, E.op.axis[0]]


def test_stage_graph_links_stages(chain):
    A, B, C = chain
    s = te.create_schedule(C.op)
    g = te.stage_graph(s)
    assert set(g.edges) == {(s[A], s[B]), (s[B], s[C])}
    assert list(nx.topological_sort(g)) == s.stages

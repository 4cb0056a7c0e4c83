"""Forms of HLO text from XLA's own test files: a custom-call without operands, a computation
written in place as an attribute (``to_apply={...}``), and the layout of XLA's HLO import
tests (a header, an ENTRY, many computations nobody calls, CHECK comments, computations without
a signature or a ``%``). Each parses, its maps are computed, and its numbers equal NumPy's."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from bound import output_to_input
from lower import build
from schedule import hlo

INLINE_REDUCE = """
HloModule m
ENTRY e {
  p0 = f32[6,8] parameter(0)
  c0 = f32[] constant(0)
  ROOT reduce = f32[6] reduce(p0, c0), dimensions={1}, to_apply={
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT add = f32[] add(a, b)
  }
}
"""

NAMED_REDUCE = """
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT add = f32[] add(a, b)
}
ENTRY e {
  p0 = f32[6,8] parameter(0)
  c0 = f32[] constant(0)
  ROOT reduce = f32[6] reduce(p0, c0), dimensions={1}, to_apply=add
}
"""

IMPORT_LAYOUT = """
// RUN: xla-translate -hlo-text-to-mlir-hlo %s -o - | FileCheck %s

// CHECK: module @foobar
HloModule foobar

// CHECK-LABEL:  func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
ENTRY %main (Arg_0.1: f32[4]) -> f32[4] {
  %Arg_0.1 = f32[4] parameter(0)
  // CHECK-NEXT:  mhlo.multiply %arg0, %arg0
  ROOT %mul = f32[4] multiply(f32[4] %Arg_0.1, f32[4] %Arg_0.1)
}

// CHECK-LABEL:  func private @test_simple
%test_simple (Arg_0.1: f32[4], Arg_1.2: f32[4]) -> f32[] {
  %Arg_0.1 = f32[4]{0} parameter(0)
  %Arg_1.2 = f32[4]{0} parameter(1)
  %add.42 = f32[4]{0} add(f32[4]{0} %Arg_0.1, f32[4]{0} %Arg_1.2)
  ROOT %dot.4 = f32[] dot(f32[4]{0} %add.42, f32[4]{0} %Arg_1.2), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}

%test_after_all_no_inputs () -> token[] {
  // CHECK-NEXT:  mhlo.create_token {xla_shape = {{.*}}} : !mhlo.token
  ROOT after-all = token[] after-all()
}

// Test all-reduce
add {
  lhs = f32[] parameter(0)
  rhs = f32[] parameter(1)
  ROOT add = f32[] add(lhs, rhs)
}

%test_all_reduce {
  input = f32[8] parameter(0)
  ROOT result = f32[8] all-reduce(input), channel_id=1, replica_groups={{0,1,2,3}, {4,5,6,7}}, to_apply=add
}
"""

EMPTY_CUSTOM_CALL = """
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  c = f32[4] custom-call(), custom_call_target="foo"
  ROOT a = f32[4] add(p, c)
}
"""


def _run(mod, inputs):
    params = [mod[name] for name in inputs]
    """The module's output built in both modes (they must agree); it starts as NaN, so an
    output the build never writes shows."""
    s = te.create_schedule(mod.root.op)
    outs = []
    for exact in (True, False):
        out = np.full([int(n) for n in mod.root.shape], np.nan, "float32")
        build(s, [*params, mod.root], exact=exact)(*inputs.values(), out)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])
    return outs[0]


def test_a_computation_written_in_place_reduces_as_a_named_one():
    x = np.random.default_rng(0).uniform(-1, 1, (6, 8)).astype("float32")
    inline, named = hlo.parse(INLINE_REDUCE), hlo.parse(NAMED_REDUCE)
    np.testing.assert_allclose(_run(inline, {"p0": x}), x.sum(axis=1), rtol=1e-5)
    np.testing.assert_allclose(_run(named, {"p0": x}), x.sum(axis=1), rtol=1e-5)
    assert [str(m) for m in output_to_input(inline.root, inline["p0"])] == \
        [str(m) for m in output_to_input(named.root, named["p0"])] == \
        ["(d0)[s0] -> (d0, s0), domain: d0 in [0, 5], s0 in [0, 7]"]


def test_the_layout_of_xlas_import_tests_parses_with_its_entry_as_root():
    mod = hlo.parse(IMPORT_LAYOUT)
    assert mod.parsed.entry.name == "main"
    assert {"test_simple", "test_after_all_no_inputs", "add", "test_all_reduce"} <= set(mod.computations)
    x = np.arange(4, dtype="float32")
    np.testing.assert_array_equal(_run(mod, {"Arg_0.1": x}), x * x)
    (m,) = output_to_input(mod["dot.4"], mod["add.42"])
    assert str(m) == "()[s0] -> (s0), domain: s0 in [0, 3]"


def test_a_custom_call_without_operands_is_opaque_and_its_users_are_not():
    mod = hlo.parse(EMPTY_CUSTOM_CALL)
    assert mod.operands(mod["c"]) == []
    (m,) = output_to_input(mod.root, mod["p"])
    assert str(m) == "(d0) -> (d0), domain: d0 in [0, 3]"


@pytest.mark.parametrize("text, message", [
    ("HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply={\n}\n}\n",
     r"line 4, column \d+: computation 'r.to_apply.1' has no instructions"),
    ("HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply={\n"
     "  a = f32[] parameter(0)\n", r"line 4, column \d+: computation 'r.to_apply.1' opened here is not closed"),
])
def test_a_broken_computation_in_place_is_refused_with_its_line(text, message):
    with pytest.raises(hlo.HloParseError, match=message):
        hlo.parse(text)


@pytest.mark.parametrize("text, message", [
    ("HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n",
     "line 3, column 9: computation 'e' opened here is not closed with '}'$"),
    ("HloModule m\n\n%f {\n  a = f32[] parameter(0)\n  ROOT c = f32[] negate(a)\n\n"
     "ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n}\n",
     "line 3, column 4: computation 'f' opened here is not closed with '}' before the computation at line 7"),
    ("HloModule m\nENTRY e {\n  p = f32[4]{0 parameter(0)\n  ROOT n = f32[4] negate(p)\n}\n",
     "line 3, column 13: the layout opened here is not closed with '}' \\(found 'parameter'\\)"),
])
def test_an_unclosed_brace_is_reported_where_it_opens(text, message):
    with pytest.raises(hlo.HloParseError, match=message):
        hlo.parse(text)

"""The indexing-analysis document's maps, from te code (the op library) and from HLO text.

Every section builds its op twice, prints the output-to-input (and, where the document shows
them, input-to-output) maps, and checks that both builds give the same maps.
Run: python tutorials/indexing_maps.py
"""

from __future__ import annotations

import schedule as te
from bound import IndexingMap, input_to_output, output_to_input
from schedule import hlo, ops


def maps_text(maps) -> str:
    return "\n".join(str(m) for m in maps)


def section(title: str, from_te, hlo_text: str, operands=(0,), inverse: bool = True,
            hlo_inputs=None) -> None:
    """*from_te* returns (output, [inputs]); they are compared with the HLO root's operands, or
    with the instructions named in *hlo_inputs*."""
    print(f"==== {title}")
    out, inputs = from_te()
    mod = hlo.parse(hlo_text)
    root = mod.root[0] if isinstance(mod.root, tuple) else mod.root
    parsed_inputs = [mod[n] for n in hlo_inputs] if hlo_inputs else mod.operands(root)
    for k in operands:
        mine, theirs = output_to_input(out, inputs[k]), output_to_input(root, parsed_inputs[k])
        assert maps_text(mine) == maps_text(theirs), (title, maps_text(mine), maps_text(theirs))
        print(f"  output -> input {k}:")
        for m in mine:
            print(f"    {m}")
        if inverse:
            print(f"  input {k} -> output:")
            for m in input_to_output(out, inputs[k]):
                print(f"    {m}")
    print()


def p(shape, name="p0", dtype="float32"):
    return te.placeholder(shape, dtype=dtype, name=name)


def main() -> None:
    def elementwise():
        a, b = p((10, 20)), p((10, 20), "p1")
        return ops.add(a, b), [a, b]
    section("Elementwise", elementwise, """ENTRY e {
  p0 = f32[10, 20] parameter(0)
  p1 = f32[10, 20] parameter(1)
  ROOT add = f32[10, 20] add(p0, p1)
}""", operands=(0, 1))

    def broadcast():
        a = p((20,))
        return ops.broadcast(a, (10, 20, 30), [1]), [a]
    section("Broadcast", broadcast, """ENTRY e {
  p0 = f32[20] parameter(0)
  ROOT bc0 = f32[10, 20, 30] broadcast(p0), dimensions={1}
}""")

    def dynamic_slice():
        src = p((2, 2, 258), "src", "int32")
        offs = [p((), f"of{k}", "int32") for k in range(1, 4)]
        return ops.dynamic_slice(src, offs, [1, 2, 32]), [src, *offs]
    section("DynamicSlice", dynamic_slice, """ENTRY e {
  src = s32[2,2,258] parameter(0)
  of1 = s32[] parameter(1)
  of2 = s32[] parameter(2)
  of3 = s32[] parameter(3)
  ROOT ds = s32[1,2,32] dynamic-slice(src, of1, of2, of3), dynamic_slice_sizes={1, 2, 32}
}""", operands=(0, 1), inverse=False)

    def dynamic_update_slice():
        src, upd = p((20, 30), "src", "int32"), p((5, 10), "upd", "int32")
        offs = [p((), f"of{k}", "int32") for k in range(1, 3)]
        return ops.dynamic_update_slice(src, upd, offs), [src, upd, *offs]
    section("DynamicUpdateSlice", dynamic_update_slice, """ENTRY e {
  src = s32[20,30] parameter(0)
  upd = s32[5,10] parameter(1)
  of1 = s32[] parameter(2)
  of2 = s32[] parameter(3)
  ROOT dus = s32[20,30] dynamic-update-slice(src, upd, of1, of2)
}""", operands=(0, 1, 2), inverse=False)

    def gather():
        operand, indices = p((33, 76, 70), "operand"), p((1806, 2), "indices", "int32")
        return ops.gather(operand, indices, [7, 8, 4], [0, 1]), [operand, indices]
    section("Gather", gather, """ENTRY e {
  operand = f32[33,76,70] parameter(0)
  indices = s32[1806,2] parameter(1)
  ROOT gather = f32[1806,7,8,4] gather(operand, indices), offset_dims={1,2,3},
    collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={7,8,4}
}""", operands=(0, 1), inverse=False)

    def transpose():
        a = p((3, 12288, 6, 128))
        return ops.transpose(a, [0, 2, 3, 1]), [a]
    section("Transpose", transpose, """ENTRY e {
  p0 = f32[3, 12288, 6, 128] parameter(0)
  ROOT transpose = f32[3, 6, 128, 12288] transpose(p0), dimensions={0, 2, 3, 1}
}""")

    def reverse():
        a = p((1, 17, 9, 9))
        return ops.reverse(a, [1, 2]), [a]
    section("Reverse", reverse, """ENTRY e {
  p0 = f32[1, 17, 9, 9] parameter(0)
  ROOT reverse = f32[1, 17, 9, 9] reverse(p0), dimensions={1, 2}
}""")

    def variadic_reduce():
        a, b = p((256, 10)), p((256, 10), "p1", "int32")
        i0, i1 = ops.constant(float("-inf"), (), "float32"), ops.constant(0, (), "int32")

        def fcombine(x, y):
            take = x[0] >= y[0]
            return te.if_then_else(take, x[0], y[0]), te.if_then_else(take, x[1], y[1])
        argmax = te.comm_reducer(fcombine, lambda t0, t1: (te.const(0.0, t0), te.const(0, t1)), name="max")
        outs = ops.reduce([a, b], [i0, i1], [0], argmax)
        return outs[0], [a, b, i0, i1]
    section("Variadic reduce", variadic_reduce, """max {
  p0 = f32[] parameter(0)
  p1 = s32[] parameter(1)
  p2 = f32[] parameter(2)
  p3 = s32[] parameter(3)
  ge = pred[] compare(p0, p2), direction=GE
  s0 = f32[] select(ge, p0, p2)
  s1 = s32[] select(ge, p1, p3)
  ROOT t = (f32[], s32[]) tuple(s0, s1)
}
ENTRY e {
  p0 = f32[256,10] parameter(0)
  p0_init = f32[] constant(-inf)
  p1 = s32[256,10] parameter(1)
  p1_init = s32[] constant(0)
  ROOT reduce = (f32[10], s32[10]) reduce(p0, p1, p0_init, p1_init), dimensions={0}, to_apply=max
}""", operands=(0, 2))

    def slice_():
        a = p((10, 20, 50))
        return ops.slice(a, [5, 3, 0], [10, 20, 50], [1, 7, 2]), [a]
    section("Slice", slice_, """ENTRY e {
  p0 = f32[10, 20, 50] parameter(0)
  ROOT slice = f32[5, 3, 25] slice(p0), slice={[5:10:1], [3:20:7], [0:50:2]}
}""")

    for title, src, dst in (("Reshape: collapse", (4, 8), (32,)), ("Reshape: expand", (32,), (4, 8)),
                            ("Reshape: generic", (4, 8), (2, 4, 4)),
                            ("Reshape: generic 3-D to 2-D", (4, 8, 12), (32, 12))):
        def reshape(src=src, dst=dst):
            a = p(src)
            return ops.reshape(a, dst), [a]
        shape = ", ".join(map(str, src))
        out = ", ".join(map(str, dst))
        section(title, reshape, f"""ENTRY e {{
  p0 = f32[{shape}] parameter(0)
  ROOT reshape = f32[{out}] reshape(p0)
}}""")

    def concat():
        xs = [p((2, 5, 7)), p((2, 11, 7), "p1"), p((2, 17, 7), "p2")]
        return ops.concatenate(xs, 1), xs
    section("Concatenate", concat, """ENTRY e {
  p0 = f32[2, 5, 7] parameter(0)
  p1 = f32[2, 11, 7] parameter(1)
  p2 = f32[2, 17, 7] parameter(2)
  ROOT concat = f32[2, 33, 7] concatenate(p0, p1, p2), dimensions={1}
}""", operands=(0, 1, 2))

    def dot():
        a, b = p((4, 128, 256)), p((4, 256, 64), "p1")
        return ops.dot(a, b, [0], [0], [2], [1]), [a, b]
    section("Dot", dot, """ENTRY e {
  p0 = f32[4, 128, 256] parameter(0)
  p1 = f32[4, 256, 64] parameter(1)
  ROOT dot = f32[4, 128, 64] dot(p0, p1), lhs_batch_dims={0}, rhs_batch_dims={0},
    lhs_contracting_dims={2}, rhs_contracting_dims={1}
}""", operands=(0, 1))
    print("  (the document prints input_2 -> output as (d0, s0, d1); input 1's last dim is the")
    print("   output's last dim, so the inverse of (d0, d1, d2)[s0] -> (d0, s0, d2) is")
    print("   (d0, d1, d2)[s0] -> (d0, s0, d2) with s0 over the output's middle dim)\n")

    def pad():
        a, v = p((4, 4)), p((), "p1")
        return ops.pad(a, v, [(1, 4, 1), (4, 8, 0)]), [a, v]
    section("Pad", pad, """ENTRY e {
  p0 = f32[4, 4] parameter(0)
  p1 = f32[] parameter(1)
  ROOT pad = f32[12, 16] pad(p0, p1), padding=1_4_1x4_8_0
}""", operands=(0, 1), inverse=False)

    def reduce_window():
        a, init = p((1024, 514)), ops.constant(float("-inf"), (), "float32")
        return ops.reduce_window(a, init, [1, 512], combiner="max"), [a, init]
    section("ReduceWindow", reduce_window, """max {
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  ROOT max = f32[] maximum(p0, p1)
}
ENTRY e {
  p0 = f32[1024, 514] parameter(0)
  c_inf = f32[] constant(-inf)
  ROOT reduce-window = f32[1024, 3] reduce-window(p0, c_inf), window={size=1x512 pad=0_0x0_0}, to_apply=max
}""", operands=(0,), inverse=False)

    def tensor_plus_transpose():
        a = p((1000, 1000))
        return ops.add(a, ops.transpose(a, [1, 0])), [a]
    section("Fusion: p0 + transpose(p0), two maps", tensor_plus_transpose, """ENTRY e {
  p0 = f32[1000, 1000] parameter(0)
  transpose_p0 = f32[1000, 1000]{0, 1} transpose(p0), dimensions={1, 0}
  ROOT a0 = f32[1000, 1000] add(p0, transpose_p0)
}""", inverse=False, hlo_inputs=["p0"])

    def transposes_of_exp():
        a = p((20, 10, 50))
        lhs = ops.transpose(ops.exp(ops.transpose(a, [1, 0, 2])), [0, 2, 1])
        rhs = ops.transpose(ops.exp(ops.transpose(a, [2, 1, 0])), [1, 0, 2])
        return ops.add(lhs, rhs), [a]
    section("Fusion: transposes of exp, one map", transposes_of_exp, """ENTRY e {
  p0 = f32[20, 10, 50] parameter(0)
  lhs_transpose_1 = f32[10, 20, 50] transpose(p0), dimensions={1, 0, 2}
  lhs_e = f32[10, 20, 50] exponential(lhs_transpose_1)
  lhs_transpose_2 = f32[10, 50, 20] transpose(lhs_e), dimensions={0, 2, 1}
  rhs_transpose_1 = f32[50, 10, 20] transpose(p0), dimensions={2, 1, 0}
  rhs_log = f32[50, 10, 20] exponential(rhs_transpose_1)
  rhs_transpose_2 = f32[10, 50, 20] transpose(rhs_log), dimensions={1, 0, 2}
  ROOT add = f32[10, 50, 20] add(lhs_transpose_2, rhs_transpose_2)
}""", inverse=False, hlo_inputs=["p0"])

    def softmax():
        a = p((2, 65, 125))
        m = ops.reduce_max(a, [2])
        e = ops.exp(ops.subtract(a, ops.broadcast(m, (2, 65, 125), [0, 1])))
        s = ops.reduce_sum(e, [2])
        return ops.divide(e, ops.broadcast(s, (2, 65, 125), [0, 1])), [a]
    section("Fusion: softmax, two maps", softmax, """add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  p0 = f32[2, 65, 125] parameter(0)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  m = f32[2, 65] reduce(p0, ninf), dimensions={2}, to_apply=max
  mb = f32[2, 65, 125] broadcast(m), dimensions={0, 1}
  d = f32[2, 65, 125] subtract(p0, mb)
  e = f32[2, 65, 125] exponential(d)
  s = f32[2, 65] reduce(e, zero), dimensions={2}, to_apply=add
  sb = f32[2, 65, 125] broadcast(s), dimensions={0, 1}
  ROOT r = f32[2, 65, 125] divide(e, sb)
}""", inverse=False, hlo_inputs=["p0"])

    def chained_reshapes():
        a = p((10, 10, 10))
        return ops.reshape(ops.reshape(a, (50, 20)), (10, 10, 10)), [a]
    section("Chained reshapes cancel", chained_reshapes, """ENTRY e {
  p0 = f32[10, 10, 10] parameter(0)
  reshape1 = f32[50, 20] reshape(p0)
  ROOT reshape2 = f32[10, 10, 10] reshape(reshape1)
}""", inverse=False, hlo_inputs=["p0"])

    print("==== Simplifier")
    for text in ("(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]",
                 "(d0, d1, d2) -> ((d0 * 100 + d1 * 10 + d2) floordiv 100, "
                 "((d0 * 100 + d1 * 10 + d2) mod 100) floordiv 10, d2 mod 10), "
                 "domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
                 "(d0, d1, d2) -> ((d0 * 16 + d1 * 4 + d2) floordiv 8, (d0 * 16 + d1 * 4 + d2) mod 8), "
                 "domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
                 "(d0, d1) -> (-((d0 * -11 - d1 + 109) floordiv 11) + 9), domain: d0 in [0, 9], d1 in [0, 10]",
                 "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 5], s0 in [1, 3], d0 + s0 in [0, 20]"):
        m = IndexingMap.parse(text)
        print(f"  {m}\n    becomes {m.simplify()}")


if __name__ == "__main__":
    main()

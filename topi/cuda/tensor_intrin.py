"""TVM's tensor-core intrinsics for TOPI's CUDA schedules (``topi.cuda.tensor_intrin``): a
warp's loads of matrix fragments from shared memory, its multiply-accumulate, and the store
of an accumulator fragment, each declared over buffers of given strides.

A fragment buffer holds fragments one after another; a call names a fragment by its index,
found from the buffer's element offset: whole fragments before it, then rows of one."""

from __future__ import annotations

from typing import Any

import schedule as te


def _fragment_index(offset: Any, rows: int, cols: int) -> Any:
    return offset // (rows * cols) + offset % (rows * cols) // cols


def _load(scope: str, fragment: tuple[int, int], strides_dst: Any, strides_from: Any, shape: Any, layout: str,
          a_shape: Any, c_shape: Any, in_dtype: str) -> Any:
    m, n, k = shape
    src = te.placeholder(a_shape, name="A", dtype=in_dtype)
    shared = te.decl_buffer(src.shape, src.dtype, "BA", scope="shared", strides=strides_from, data_alignment=32,
                            offset_factor=8)
    frag = te.compute(c_shape, lambda *i: src(*i), name="C")
    reg = te.decl_buffer(frag.shape, frag.dtype, "BC", scope=scope, strides=strides_dst, data_alignment=32,
                         offset_factor=8)

    def body(ins: Any, outs: Any) -> Any:
        index = _fragment_index(outs[0].elem_offset, *fragment)
        return te.call_intrin("handle", "tir.tvm_load_matrix_sync", outs[0].data, m, n, k, index,
                              ins[0].access_ptr("r"), strides_from[0], layout)
    return te.decl_tensor_intrin(frag.op, body, binds={src: shared, frag: reg})


def intrin_wmma_load_matrix_A(strides_dst: Any, strides_from: Any, shape: Any, layout: str, A_shape: Any,
                              C_shape: Any, in_dtype: str) -> Any:
    """A warp's load of an ``m x k`` fragment of matrix A from shared memory (rows *strides_from[0]* apart)."""
    m, _, k = shape
    return _load("wmma.matrix_a", (m, k), strides_dst, strides_from, shape, layout, A_shape, C_shape, in_dtype)


def intrin_wmma_load_matrix_W(strides_dst: Any, strides_from: Any, shape: Any, layout: str, A_shape: Any,
                              C_shape: Any, in_dtype: str) -> Any:
    """A warp's load of a fragment of matrix B (the weights) from shared memory."""
    _, n, k = shape
    return _load("wmma.matrix_b", (k, n), strides_dst, strides_from, shape, layout, A_shape, C_shape, in_dtype)


def intrin_wmma_store_matrix(strides_dst: Any, strides_from: Any, shape: Any, out_dtype: str, A_shape: Any,
                             C_shape: Any) -> Any:
    """A warp's store of an ``m x n`` accumulator fragment to shared memory, row-major."""
    m, n, k = shape
    frag = te.placeholder(A_shape, name="A", dtype=out_dtype)
    reg = te.decl_buffer(frag.shape, frag.dtype, "BA", scope="wmma.accumulator", strides=strides_from,
                         data_alignment=32, offset_factor=8)
    out = te.compute(C_shape, lambda *i: frag(*i), name="C")
    shared = te.decl_buffer(out.shape, out.dtype, "BC", scope="shared", strides=strides_dst, data_alignment=32,
                            offset_factor=8)

    def body(ins: Any, outs: Any) -> Any:
        index = _fragment_index(ins[0].elem_offset, m, n)
        return te.call_intrin("handle", "tir.tvm_store_matrix_sync", ins[0].data, m, n, k, index,
                              outs[0].access_ptr("w"), strides_dst[0], "row_major")
    return te.decl_tensor_intrin(out.op, body, binds={frag: reg, out: shared})


def intrin_wmma_gemm(AL_gemm: Any, WL_gemm: Any, CL_compute: Any, strides_A: Any, strides_W: Any,
                     strides_Conv: Any, shape: Any) -> Any:
    """A warp's ``C += A B`` on fragments (*CL_compute* defines it over *AL_gemm* and *WL_gemm*);
    its reset fills the accumulator with zeros."""
    m, n, k = shape
    a, b, c = AL_gemm, WL_gemm, CL_compute
    roles = ((a, "BA", "wmma.matrix_a", strides_A), (b, "BB", "wmma.matrix_b", strides_W),
             (c, "BC", "wmma.accumulator", strides_Conv))
    binds = {t: te.decl_buffer(t.shape, t.dtype, name, scope=scope, strides=strides, data_alignment=32,
                               offset_factor=8) for t, name, scope, strides in roles}

    def body(ins: Any, outs: Any) -> Any:
        fa, fb = ins
        fc = outs[0]
        ia, ib, ic = (_fragment_index(fa.elem_offset, m, k), _fragment_index(fb.elem_offset, k, n),
                      _fragment_index(fc.elem_offset, m, n))
        update = te.call_intrin("handle", "tir.tvm_mma_sync", fc.data, ic, fa.data, ia, fb.data, ib, fc.data, ic)
        fill = te.call_intrin("handle", "tir.tvm_fill_fragment", fc.data, m, n, k, ic, 0.0)
        return update, fill, update
    return te.decl_tensor_intrin(c.op, body, binds=binds)

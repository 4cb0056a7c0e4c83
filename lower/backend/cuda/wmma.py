"""Tensor-core fragments and the wmma intrinsics in CUDA, written as TVM's CUDA code writes them:
``nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, half, nvcuda::wmma::row_major> A_shared_wmma_matrix_a[2];``
and ``nvcuda::wmma::mma_sync(C[0], A[0], B[0], C[0]);``.

A fragment belongs to a whole warp: every lane calls the same intrinsic on the same fragment.
So a kernel that uses them launches whole warps of ``threadIdx.x`` (a multiple of 32), and no
call sits under a condition, or takes an index, that differs between the lanes of a warp.
"""

from __future__ import annotations

from typing import Any

from lower.backend.c.expr import c_type
from lower.backend.cuda.split import DeviceKernel
from lower.errors import LoweringError
from lower.ir.stmt import Buffer, BufferView, Load, Store
from lower.ir.stmt_functor import stmt_exprs, walk
from lower.passes.tensor_core import ACCUMULATOR, FILL, LOAD, MATRIX_A, MATRIX_B, MMA, STORE, Fragment, wmma_call
from schedule import arith
from schedule.ir.expr import Call, Expr
from schedule.ir.functor import distinct_post_order, free_vars

#: The shapes m x n x k a warp multiplies with 8- and 16-bit inputs.
SHAPES = ((16, 16, 16), (32, 8, 16), (8, 32, 16))
#: Input types (CUDA's name, and the compute capability that first has them).
INPUTS = {"float16": ("half", 70), "int8": ("signed char", 72), "uint8": ("unsigned char", 72)}
#: Accumulator types for each input type.
ACCUMULATORS = {"float16": {"float32": "float", "float16": "half"}, "int8": {"int32": "int"},
                "uint8": {"int32": "int"}}
_ROLE = {MATRIX_A: "matrix_a", MATRIX_B: "matrix_b", ACCUMULATOR: "accumulator"}


def check_kernel(k: DeviceKernel, frags: dict[Buffer, Fragment]) -> int:
    """Refuse what a warp cannot run in *k*; the compute capability its fragments need (0: none).

    :raises LoweringError: naming the fragment, shape, type or condition.
    """
    calls = [(s, call) for s, _ in k.lane_divergence if (call := wmma_call(s)) is not None]
    for s in walk(k.kernel.root):
        for e in stmt_exprs(s):
            for x in distinct_post_order(e):
                if isinstance(x, Load) and x.buffer.scope.startswith("wmma."):
                    raise _element_access(x.buffer)
        if isinstance(s, Store) and s.buffer.scope.startswith("wmma."):
            raise _element_access(s.buffer)
    if not calls:
        return 0
    lanes = arith.value_of(k.launch.get("threadIdx.x", arith.const(1)))
    if not (isinstance(lanes, int) and lanes % 32 == 0):
        raise LoweringError(f"build: target 'cuda': kernel {k.name} calls wmma intrinsics, which whole warps run "
                            f"together, but launches {lanes} threads along threadIdx.x; bind a loop of extent 32 "
                            "(or a multiple) to threadIdx.x")
    divergent = {id(s) for s, d in k.lane_divergence if d}
    lane_vars = {iv.var for iv in k.kernel.threads if iv.thread_tag == "threadIdx.x"}
    for s, call in calls:
        if id(s) in divergent or set(free_vars(list(call.args))) & lane_vars:
            raise LoweringError(f"build: target 'cuda': kernel {k.name} calls {call.name} under a condition or with "
                                "an index that differs between the lanes of a warp (threadIdx.x); every lane of a "
                                "warp must make the same call on the same fragment")
    needed = 0
    for buf, frag in frags.items():
        if (frag.m, frag.n, frag.k) not in SHAPES:
            shapes = ", ".join("x".join(map(str, sh)) for sh in SHAPES)
            raise LoweringError(f"build: target 'cuda': fragment '{buf.name}' is {frag.m}x{frag.n}x{frag.k}; "
                                f"CUDA's wmma multiplies {shapes}")
        needed = max(needed, _input_type(buf, frags)[1])
    return needed


def _input_type(buf: Buffer, frags: dict[Buffer, Fragment]) -> tuple[str, int]:
    """The CUDA type of *buf*'s elements, and the compute capability that has it."""
    inputs = {b.dtype for b, f in frags.items() if f.scope != ACCUMULATOR}
    if buf.scope != ACCUMULATOR:
        if buf.dtype not in INPUTS:
            raise LoweringError(f"build: target 'cuda': fragment '{buf.name}' holds {buf.dtype}; wmma multiplies "
                                f"{', '.join(INPUTS)}")
        return INPUTS[buf.dtype]
    for dtype in sorted(inputs) or ["float16"]:
        found = ACCUMULATORS.get(dtype, {}).get(buf.dtype)
        if found is not None:
            return found, INPUTS[dtype][1]
    allowed = sorted({a for d in inputs or {"float16"} for a in ACCUMULATORS.get(d, {})})
    raise LoweringError(f"build: target 'cuda': accumulator '{buf.name}' holds {buf.dtype}; with "
                        f"{', '.join(sorted(inputs)) or 'float16'} inputs it holds {', '.join(allowed)}")


def _element_access(buf: Buffer) -> LoweringError:
    return LoweringError(f"build: target 'cuda': '{buf.name}' in {buf.scope} memory is read or written element by "
                         "element; a warp's fragment is reached only through the wmma intrinsics (tensorize the "
                         "stages that fill and read it)")


def declare_fragments(buf: Buffer, frags: dict[Buffer, Fragment], name: str) -> str:
    """The declaration of *buf*'s fragments."""
    frag = frags.get(buf)
    if frag is None:
        raise LoweringError(f"build: target 'cuda': '{buf.name}' in {buf.scope} memory is never filled or loaded by "
                            "a wmma intrinsic, so its fragment shape is unknown")
    count = arith.value_of(buf.size)
    if not isinstance(count, int) or count % frag.size:
        raise LoweringError(f"build: target 'cuda': '{buf.name}' holds {buf.size} elements, not a whole number of "
                            f"{frag.rows}x{frag.cols} fragments")
    element = _input_type(buf, frags)[0]
    layout = f", nvcuda::wmma::{frag.layout}" if frag.scope != ACCUMULATOR else ""
    return (f"nvcuda::wmma::fragment<nvcuda::wmma::{_ROLE[frag.scope]}, {frag.m}, {frag.n}, {frag.k}, {element}"
            f"{layout}> {name}[{max(count // frag.size, 1)}];")


def wmma_text(call: Call, expr: Any) -> str:
    """The statement a wmma *call* becomes; *expr* prints expressions and names buffers."""
    def fragment(k: int) -> str:
        view = call.args[k]
        assert isinstance(view, BufferView)
        return f"{expr.buffer_name(view.buffer)}[{expr(call.args[k + 1 if call.name == MMA else 4])}]"
    if call.name == FILL:
        buf = call.args[0].buffer  # type: ignore[attr-defined]
        return f"nvcuda::wmma::fill_fragment({fragment(0)}, {expr(arith.cast(buf.dtype, call.args[5]))});"
    if call.name == MMA:
        return f"nvcuda::wmma::mma_sync({', '.join(fragment(k) for k in (0, 2, 4, 6))});"
    pointer = _pointer_text(call.args[5], expr)
    layout = f", nvcuda::wmma::mem_{call.args[7].value}"  # type: ignore[attr-defined]
    if call.name == LOAD:
        buf = call.args[0].buffer  # type: ignore[attr-defined]
        tail = layout if buf.scope == ACCUMULATOR else ""
        return f"nvcuda::wmma::load_matrix_sync({fragment(0)}, {pointer}, {expr(call.args[6])}{tail});"
    assert call.name == STORE
    return f"nvcuda::wmma::store_matrix_sync({pointer}, {fragment(0)}, {expr(call.args[6])}{layout});"


def _pointer_text(arg: Expr, expr: Any) -> str:
    """``((half *)A_shared + (offset))``, as TVM prints an ``access_ptr``."""
    if isinstance(arg, Call) and arg.name == "tvm_access_ptr" and isinstance(arg.args[1], BufferView):
        buf, start = arg.args[1].buffer, arg.args[2]
    elif isinstance(arg, BufferView):
        buf, start = arg.buffer, arg.offset
    else:
        raise LoweringError(f"build: target 'cuda': a wmma load or store reaches memory through a buffer's "
                            f"access_ptr, not {arg}")
    return f"(({c_type(buf.dtype)} *){expr.buffer_name(buf)} + ({expr(start)}))"

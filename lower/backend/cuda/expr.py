"""CUDA C text of expressions: the C target's, so that a kernel computes what the CPU run of
the same schedule computes (NaN in max/min, floor division, casts out of range, shifts), with
the helpers made device functions and what a GPU cannot do refused by name."""

from __future__ import annotations

from typing import Any

from lower.backend.c.expr import CExprSource
from lower.errors import LoweringError
from lower.ir.stmt import Buffer, BufferView, Load
from schedule.ir.dtype import bits
from schedule.ir.expr import Call, Expr, StringImm

#: Types and constants the C target takes from the C library's headers, which NVRTC lacks.
PRELUDE = """typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#define INT64_C(c) c##LL
#define UINT64_C(c) c##ULL
#define INT32_MIN (-2147483647 - 1)
#define INT64_MIN (-9223372036854775807LL - 1)
#define NAN __int_as_float(0x7fc00000)
#define INFINITY __int_as_float(0x7f800000)
"""
#: float16 as CUDA's half (the C target's name for it kept): NVIDIA's header, from the
#: ``nvidia-cuda-runtime`` package of the cuda extra.
HALF = """#include <cuda_fp16.h>
typedef __half _Float16;
"""


#: CUDA's fast single-precision intrinsics, used for ``build(..., fast_math=True)`` only (as
#: TVM's CUDA code calls ``__expf`` only when asked): a few ulp, and subnormals flushed.
FAST_MATH = {"exp": "__expf", "exp10": "__exp10f", "log": "__logf", "log2": "__log2f", "log10": "__log10f",
             "sin": "__sinf", "cos": "__cosf", "tan": "__tanf", "pow": "__powf"}


class CudaExprSource(CExprSource):
    """The C target's expression text, unchecked (a kernel has no error context to record a
    division by zero in), for device code."""

    def __init__(self, names, fast_math: bool = False) -> None:  # noqa: ANN001 - lower.backend.names.Names
        super().__init__(names, checked=False)
        self.fast_math = fast_math
        #: Warp buffers held in registers (see lower.backend.cuda.warp): their reads shuffle.
        self.shuffled: dict[Buffer, Any] = {}

    def visit_load(self, e: Load) -> str:
        layout = self.shuffled.get(e.buffer)
        if layout is None:
            return super().visit_load(e)
        lane, local = layout.place(e.index)
        return f"__shfl_sync(__activemask(), {self.buffer_name(e.buffer)}[{self(local)}], {self(lane)}, {layout.width})"

    def _math(self, name: str, dtype: str, args: list[Expr]) -> str:
        fast = FAST_MATH.get(name) if self.fast_math and dtype == "float32" else None
        if fast is None:
            return super()._math(name, dtype, args)
        return f"{fast}({', '.join(self(a) for a in args)})"

    def index(self, buf: Buffer, e: Expr) -> str:
        """An index in 32 bits, as TVM's CUDA code writes it (``int``): a GPU computes 64-bit
        integers in two steps. The GPU run refuses arrays of 2^31 elements or more."""
        return self(e)

    def needs_wide(self, e: Expr) -> bool:
        return False

    def device_helpers(self) -> list[str]:
        """The helper functions the expressions call, as device functions."""
        device = "__device__ __forceinline__ "  # not static: one left unused would warn
        return [text.replace("static inline ", device, 1) for text in self.helpers.values()]

    def visit_string_imm(self, e: StringImm) -> str:
        raise LoweringError(f"build: target 'cuda' cannot pass the string {e.value!r} in a kernel")

    def visit_call(self, e: Call) -> str:
        if e.name == "likely":  # TVM's CUDA code writes the condition alone
            return self(e.args[0])
        if e.name == "prefetch":
            return "0"
        if e.name in ("popcount", "clz"):  # of the operand's own width, as on the CPU
            width = bits(e.args[0].dtype)
            own = f"(uint{width}_t)({self(e.args[0])})"
            if e.name == "popcount":
                return f"__popcll({own})" if width > 32 else f"__popc({own})"
            return f"__clzll((long long){own})" if width > 32 else f"(__clz((int){own}) - {32 - width})"
        return super().visit_call(e)

    def _python_call(self, kind: str, name: str, call: Call, args: list[Expr]) -> str:
        raise LoweringError(f"build: target 'cuda': a kernel cannot call the Python function '{name}'; compute that "
                            "stage outside the kernel's thread-bound loops on a CPU target")

    def visit_buffer_view(self, e: BufferView) -> str:
        raise LoweringError(f"build: target 'cuda': buffer '{e.name}' is passed to a call inside a kernel")

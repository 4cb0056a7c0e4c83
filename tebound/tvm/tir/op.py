"""TVM's ``tvm.tir.op``: the operator functions (``call_intrin``, ``floordiv``, ``exp`` ...),
the same objects ``tvm.tir`` gives."""

from schedule import (  # noqa: F401
    abs,  # noqa: A004
    all,  # noqa: A004
    any,  # noqa: A004
    call_extern,
    call_intrin,
    call_packed,
    call_pure_extern,
    const,
    div,
    exp,
    floordiv,
    floormod,
    if_then_else,
    indexdiv,
    indexmod,
    max,
    max_value,
    min,
    min_value,
    power,
    sigmoid,
    sqrt,
    tanh,
    truncdiv,
    truncmod,
)
from schedule import log as _log
from schedule.ir.arith import convert as _convert
from schedule.ir.dtype import is_float as _is_float
from schedule.ir.expr import Call as _Call
from schedule.ir.intrinsics import (  # noqa: F401
    acos,
    asin,
    atan,
    ceil,
    cos,
    cosh,
    erf,
    exp2,
    exp10,
    floor,
    isfinite,
    isinf,
    isnan,
    likely,
    log1p,
    log2,
    log10,
    reinterpret,
    round,  # noqa: A004
    rsqrt,
    sin,
    sinh,
    tan,
    trunc,
)


def log(x: object) -> _Call:
    """TVM's ``tir.log``: of an integer too, as TVM builds it (for analysis; a compute refuses
    it, as TVM's code generators do: cast to a float type to compute it)."""
    e = _convert(x)
    return _log(e) if _is_float(e.dtype) else _Call(e.dtype, "log", (e,))

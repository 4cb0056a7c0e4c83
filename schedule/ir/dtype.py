"""Data types as TVM spells them (``int32``, ``float32``, ``bool`` ...) and their promotion.

A vector type appends its lanes (``int32x4``, ``float32x4``; ``uint1x2`` is ``boolx2``). Vectors
serve the arithmetic analysis of TVM's ``Ramp`` and ``Broadcast``; the kernels take scalars only.
The predicates (``is_int``, ``bits`` ...) speak of the element type."""

from __future__ import annotations

import re
from functools import lru_cache

from schedule.base.errors import ScheduleTypeError

_DTYPE_RE = re.compile(r"^(bool|int|uint|float|handle)(\d*)(?:x(\d+))?$")
_DEFAULT_BITS = {"bool": 1, "int": 32, "uint": 32, "float": 32, "handle": 64}
_VALID_BITS = {"bool": {1}, "int": {8, 16, 32, 64}, "uint": {8, 16, 32, 64},
               "float": {16, 32, 64}, "handle": {64}}


def check_dtype(dtype: object) -> str:
    """Return *dtype* in canonical spelling (``"int"`` -> ``"int32"``).

    :raises TypeError: if *dtype* is not a string.
    :raises ValueError: if it names no supported type.
    """
    if not isinstance(dtype, str):
        raise ScheduleTypeError(f"dtype must be a string such as 'float32', not {type(dtype).__name__}")
    return _canonical(dtype)


# Every node checks its dtype: the few distinct strings are parsed once each.
@lru_cache(maxsize=256)
def _canonical(dtype: str) -> str:
    m = _DTYPE_RE.match(dtype)
    if not m:
        raise ValueError(f"unknown dtype '{dtype}'; expected bool, int8..int64, uint8..uint64, "
                         "float16, float32 or float64")
    code, bits = m.group(1), int(m.group(2) or _DEFAULT_BITS[m.group(1)])
    if code == "uint" and bits == 1:  # TVM's spelling of bool
        code = "bool"
    if bits not in _VALID_BITS[code]:
        raise ValueError(f"unknown dtype '{dtype}': {code} has no {bits}-bit variant")
    n = int(m.group(3) or 1)
    if n < 1 or (n > 1 and code == "handle"):
        raise ValueError(f"unknown dtype '{dtype}': {n} lanes of {code}")
    scalar = "bool" if code == "bool" else f"{code}{bits}"
    return scalar if n == 1 else f"{scalar}x{n}"


@lru_cache(maxsize=256)
def lanes(dtype: str) -> int:
    """The number of lanes of *dtype* (1 for a scalar)."""
    m = _DTYPE_RE.match(dtype)
    assert m is not None, dtype
    return int(m.group(3) or 1)


@lru_cache(maxsize=256)
def element(dtype: str) -> str:
    """The scalar type of one lane of *dtype*."""
    return dtype if "x" not in dtype else dtype[:dtype.index("x")]


def with_lanes(dtype: str, n: int) -> str:
    """*dtype*'s element type with *n* lanes."""
    scalar = element(dtype)
    return scalar if n == 1 else f"{scalar}x{n}"


@lru_cache(maxsize=256)
def type_code(dtype: str) -> str:
    """``"int"``, ``"uint"``, ``"float"``, ``"bool"`` or ``"handle"``."""
    m = _DTYPE_RE.match(dtype)
    assert m is not None, dtype
    return m.group(1)


@lru_cache(maxsize=256)
def bits(dtype: str) -> int:
    """Bit width of *dtype* (``bool`` has 1)."""
    m = _DTYPE_RE.match(dtype)
    assert m is not None, dtype
    return int(m.group(2) or _DEFAULT_BITS[m.group(1)])


def is_int(dtype: str) -> bool:
    """Signed or unsigned integer (not bool)."""
    return type_code(dtype) in ("int", "uint")


def is_float(dtype: str) -> bool:
    return type_code(dtype) == "float"


def is_bool(dtype: str) -> bool:
    """bool, or a vector of bools."""
    return type_code(dtype) == "bool"


def is_index(dtype: str) -> bool:
    """Usable as a tensor index or a loop bound: a signed or unsigned integer."""
    return is_int(dtype)


@lru_cache(maxsize=256)
def int_range(dtype: str) -> tuple[int, int]:
    """Inclusive value range of an integer or bool *dtype* (of one lane)."""
    code, b = type_code(dtype), bits(dtype)
    if code == "bool":
        return 0, 1
    if code == "uint":
        return 0, (1 << b) - 1
    return -(1 << (b - 1)), (1 << (b - 1)) - 1


def binary_result(a: str, b: str) -> str:
    """The common type two operands are cast to, following TVM's ``BinaryOpMatchTypes``.

    Floats win over integers; among floats or among integers the wider wins; a signed and an
    unsigned integer of equal width meet at the unsigned one; bool is a 1-bit unsigned integer.
    """
    if a == b:
        return a
    if lanes(a) != lanes(b):
        if lanes(a) != 1 and lanes(b) != 1:
            raise ScheduleTypeError(f"cannot combine {a} and {b}: their lanes differ")
        n = max(lanes(a), lanes(b))
        return with_lanes(binary_result(element(a), element(b)), n)
    if lanes(a) != 1:
        return with_lanes(binary_result(element(a), element(b)), lanes(a))
    fa, fb = is_float(a), is_float(b)
    if fa and fb:
        return a if bits(a) >= bits(b) else b
    if fa != fb:
        return a if fa else b
    if "handle" in (type_code(a), type_code(b)):
        raise ScheduleTypeError(f"cannot combine {a} and {b}")
    ba, bb = bits(a), bits(b)
    if ba != bb:
        return a if ba > bb else b
    return a if type_code(a) == "uint" else b

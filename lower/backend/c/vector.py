"""Vectorized loops as GCC vector code, so values stay in vector registers.

A ``vectorized`` loop of constant extent whose statements store contiguously along the loop
(``B[base + v] = ...``) and whose loads are contiguous along it or do not depend on it is
written as vector statements, one per group of lanes (a loop over the groups when there are
many); fast math calls (``fast_exp``, ``fast_log``, ...) become their vector functions. Other
vectorized loops stay ``omp simd`` loops. Vector loads and stores go through a type of element alignment
(unaligned access); a value that does not depend on the loop is broadcast by the arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from bound import simplify
from bound.arith.linear import Linear
from lower.backend.c.compile import native_vector_bytes, splits_wide_vectors
from lower.backend.c.fast_math import FAST_FUNCTIONS, fast_function
from lower.backend.c.runtime import needs_guard
from lower.ir.stmt import Buffer, For, Load, SeqStmt, Stmt, Store
from schedule import arith
from schedule.ir.dtype import bits
from schedule.ir.expr import Add, Call, Div, Expr, Max, Min, Mul, Sub, Var
from schedule.ir.functor import children, distinct_post_order, free_vars, structural_equal, substitute

#: Bytes of one vector the generated code uses; None: the machine's (see native_vector_bytes).
VECTOR_BYTES: int | None = None
#: Buffers of at most this many elements may become variables (registers), not memory.
REGISTER_ELEMENTS = 256
#: Element types written as vectors, by dtype: their C element type.
ELEMENTS = {"float32": "float", "float64": "double", "int32": "int32_t", "int64": "int64_t"}
T = TypeVar("T")
_OPS = {Add: "+", Sub: "-", Mul: "*", Div: "/"}
_FLOATS = ("float32", "float64")


@dataclass(frozen=True)
class VectorLoop:
    """How a loop is written as vectors: *lanes* per vector of *dtype*, in groups covering it."""

    loop: For
    dtype: str
    lanes: int
    stores: tuple[Store, ...]

    @property
    def groups(self) -> int:
        return int(arith.value_of(self.loop.extent)) // self.lanes  # type: ignore[arg-type]

    @property
    def type_name(self) -> str:
        return f"tb_{self.dtype}x{self.lanes}"

    def typedef(self) -> str:
        return vector_type(self.dtype, self.lanes)[1]


def plan_vector_loop(s: For) -> VectorLoop | None:
    """The vector form of *s*, or None if it is not a loop of contiguous stores and loads."""
    extent = arith.value_of(s.extent)
    if not isinstance(extent, int) or extent < 2:
        return None
    stores = s.body.seq if isinstance(s.body, SeqStmt) else (s.body,)
    if not stores or not all(isinstance(x, Store) for x in stores):
        return None
    dtypes = {x.buffer.dtype for x in stores}  # type: ignore[union-attr]
    if len(dtypes) != 1 or (dtype := dtypes.pop()) not in ELEMENTS:
        return None
    width = VECTOR_BYTES or native_vector_bytes()
    if VECTOR_BYTES is None and width > 32 and splits_wide_vectors() and _adds_into_memory(stores):
        width = 32
    lanes = min(extent, width * 8 // bits(dtype))
    if lanes < 2 or lanes & (lanes - 1) or extent % lanes:
        return None
    v = s.loop_var
    for st in stores:
        assert isinstance(st, Store)
        if st.value.dtype != dtype or _step(st.index, v) != 1 or not _vectorizable(st.value, v, dtype) \
                or needs_guard(st):
            return None
    return VectorLoop(s, dtype, lanes, tuple(stores))  # type: ignore[arg-type]


def _adds_into_memory(stores: tuple[Stmt, ...]) -> bool:
    """Whether a store's value loads the element it stores, of a buffer too large to become
    variables (so the update goes through memory whatever registers are chosen)."""
    for st in stores:
        assert isinstance(st, Store)
        size = arith.value_of(st.buffer.size)
        if isinstance(size, int) and size <= REGISTER_ELEMENTS:
            continue
        if any(isinstance(x, Load) and x.buffer is st.buffer and structural_equal(x.index, st.index)
               for x in distinct_post_order(st.value)):
            return True
    return False


def _step(index: Expr, v: Var) -> int | None:
    """How much *index* grows with *v* (0 if it does not use it); None if not by a constant."""
    if v not in free_vars([index]):
        return 0
    lin = Linear.of(simplify(index))
    k = lin.terms.get(v)
    if k is None or any(v in free_vars([atom]) for atom in lin.terms if atom is not v):
        return None
    return k


def _lane_nodes(value: Expr, v: Var) -> list[Expr]:
    """The distinct nodes of *value* that vary along *v*, children first; a load is a leaf."""
    order: list[Expr] = []
    seen: set[int] = set()
    stack: list[tuple[Expr, bool]] = [(value, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen or v not in free_vars([node]):
            continue
        seen.add(id(node))
        stack.append((node, True))
        if not isinstance(node, Load):
            stack.extend((c, False) for c in children(node))
    return order


def _vectorizable(value: Expr, v: Var, dtype: str) -> bool:
    """Whether *value* is element-wise arithmetic over contiguous loads and values free of *v*."""
    for node in _lane_nodes(value, v):
        if isinstance(node, Load):
            if node.dtype != dtype or _step(node.index, v) != 1 or needs_guard(node):
                return False
        elif isinstance(node, Call) and node.name[5:] in FAST_FUNCTIONS and node.name.startswith("fast_") \
                and dtype == "float32":
            continue
        elif isinstance(node, (Max, Min)) and node.dtype == dtype:
            continue
        elif type(node) not in _OPS or node.dtype != dtype or (type(node) is Div and dtype not in _FLOATS):
            return False  # an integer division is checked for a zero divisor, lane by lane
    return True


def vector_type(dtype: str, lanes: int) -> tuple[str, str]:
    """The name and the typedef of a vector of *lanes* elements of *dtype* (element-aligned)."""
    name = f"tb_{dtype}x{lanes}"
    size = lanes * bits(dtype) // 8
    return name, (f"typedef {ELEMENTS[dtype]} {name} __attribute__((vector_size({size}), "
                  f"aligned({bits(dtype) // 8})));")


def _starts(plan: VectorLoop, group: Var | None = None) -> list[Expr]:
    """The first lane of each group of *plan* (of group number *group* only, when given)."""
    loop, v = plan.loop, plan.loop.loop_var
    if group is not None:
        return [simplify(arith.add(loop.min, arith.mul(group, arith.const(plan.lanes, v.dtype))))]
    return [simplify(arith.add(loop.min, arith.const(g * plan.lanes, v.dtype))) for g in range(plan.groups)]


def vector_statements(plan: VectorLoop, scalar: Callable[[Expr], str], access: Callable[[Buffer, str, Expr], str],
                      helpers: dict[str, str], group: Var | None = None) -> list[str]:
    """The C statements of *plan*: each store of each group of lanes, in order, or with *group*
    those of group number *group* (the body of a loop over the groups). ``access(buffer, vector
    type, index)`` is the C text of the vector of lanes from *index* on; functions the
    statements call are added to *helpers*."""
    v, vt = plan.loop.loop_var, plan.type_name
    lines = []
    for start in _starts(plan, group):
        for st in plan.stores:
            target = access(st.buffer, vt, simplify(substitute(st.index, {v: start})))
            if v in free_vars([st.value]):
                value = _vector_expr(st.value, v, start, scalar, access, vt, plan.lanes, helpers)
                lines.append(f"{target} = {value};")
            else:  # one value for every lane
                lanes = ", ".join(["tb_b"] * plan.lanes)
                lines.append(f"{{ const {ELEMENTS[plan.dtype]} tb_b = {scalar(st.value)}; "
                             f"{target} = ({vt}){{{lanes}}}; }}")
    return lines


def shared_loads(plans: Sequence[VectorLoop]) -> list[tuple[Buffer, Expr]]:
    """The vectors (a buffer and the index of the first lane) that the written-out statements
    of *plans*, in order, load more than once, of buffers none of them stores: those can be
    loaded once, before them. GCC does not reuse such a load across the stores between its
    uses: a matmul's register tile, its rows unrolled, loaded each column vector once per row
    (10 loads for 8 multiply-adds, where 6 do)."""
    stored = {st.buffer for plan in plans for st in plan.stores}
    counts: LoadTable[int] = LoadTable()
    order: list[tuple[Buffer, Expr]] = []
    for plan in plans:
        v = plan.loop.loop_var
        for start in _starts(plan):
            for st in plan.stores:
                for node in _lane_nodes(st.value, v):
                    if not isinstance(node, Load) or node.buffer in stored:
                        continue
                    index = simplify(substitute(node.index, {v: start}))
                    count = (counts.get(node.buffer, index) or 0) + 1
                    counts.set(node.buffer, index, count)
                    if count == 2:
                        order.append((node.buffer, index))
    return order


class LoadTable(Generic[T]):
    """A value per vector load: a buffer and the index of its first lane, indices compared as
    trees (the count of each load, the variable a shared one was loaded into)."""

    def __init__(self) -> None:
        self._entries: dict[tuple[int, int], list[tuple[Expr, T]]] = {}

    def get(self, buf: Buffer, index: Expr) -> T | None:
        for known, value in self._entries.get((id(buf), hash(index)), []):
            if structural_equal(known, index):
                return value
        return None

    def set(self, buf: Buffer, index: Expr, value: T) -> None:
        entries = self._entries.setdefault((id(buf), hash(index)), [])
        entries[:] = [(known, v) for known, v in entries if not structural_equal(known, index)]
        entries.append((index, value))


def _vector_expr(value: Expr, v: Var, start: Expr, scalar: Callable[[Expr], str],
                 access: Callable[[Buffer, str, Expr], str], vt: str, lanes: int, helpers: dict[str, str]) -> str:
    """The vector C text of *value* for the lanes from *start* (children before parents, without
    recursion: expressions may be thousands of nodes deep)."""
    text: dict[int, str] = {}

    def of(e: Expr) -> str:
        return text[id(e)] if id(e) in text else scalar(e)

    def lanes_of(e: Expr) -> str:
        """*e* as a vector: a value the same in every lane is broadcast (arithmetic operators
        broadcast by themselves; a function of vectors does not)."""
        return text[id(e)] if id(e) in text else f"(({vt}){{0}} + ({scalar(e)}))"
    for node in _lane_nodes(value, v):
        if isinstance(node, Load):
            text[id(node)] = f"({access(node.buffer, vt, simplify(substitute(node.index, {v: start})))})"
        elif isinstance(node, Call):  # fast_exp, fast_log, ...
            name, needs = fast_function(node.name[5:], lanes)
            for key, code in needs:
                helpers.setdefault(key, code)
            text[id(node)] = f"{name}({of(node.args[0])})"
        elif isinstance(node, (Max, Min)):
            name, code = _select_helper(vt, bits(node.dtype), isinstance(node, Max))
            helpers.setdefault(name, code)
            text[id(node)] = f"{name}({lanes_of(node.a)}, {lanes_of(node.b)})"
        else:
            text[id(node)] = f"({of(node.a)} {_OPS[type(node)]} {of(node.b)})"  # type: ignore[attr-defined]
    return text[id(value)]



def _select_helper(vt: str, width: int, larger: bool) -> tuple[str, str]:
    """``max`` or ``min`` of two vectors lane by lane, as the scalar helpers choose (``a > b ? a
    : b``, a NaN in either lane giving NaN, as NumPy's maximum): C has no conditional operator
    on vectors, so through a lane mask; on x86, floats go through ``maxps``/``minps`` (a third of
    a compare and blend's latency, which a max reduction's chain pays), with the lanes where
    either operand is NaN set to all ones, a NaN."""
    op = "max" if larger else "min"
    name = f"{vt}_{op}"
    mask = f"{vt}_mask"
    size = int(vt.rsplit("x", 1)[1]) * width // 8
    typedef = f"typedef int{width}_t {mask} __attribute__((vector_size({size})));"
    sign = ">" if larger else "<"
    floats = vt.startswith("tb_float")
    nan = f" | ({mask})(a != a)" if floats else ""
    generic = (f"static inline {vt} {name}({vt} a, {vt} b) {{ {mask} m = ({mask})(a {sign} b){nan}; "
               f"return ({vt})((({mask})a & m) | (({mask})b & ~m)); }}")
    if not floats or size not in _X86_VECTORS:
        return name, f"{typedef}\n{generic}"
    guard, prefix, native = _X86_VECTORS[size]
    suffix = "ps" if width == 32 else "pd"
    native_type = native + ("" if width == 32 else "d")
    head = (f"static inline {vt} {name}({vt} a, {vt} b) {{ {native_type} x = ({native_type})a, "
            f"y = ({native_type})b; ")
    if size == 64:  # AVX-512 compares into a mask: blend all-ones (a NaN) into the unordered lanes
        ones = f"_mm512_castsi512_{suffix}(_mm512_set1_epi{width}(-1))"
        intrinsic = (head + f"return ({vt})_mm512_mask_blend_{suffix}(_mm512_cmp_{suffix}_mask(x, y, _CMP_UNORD_Q), "
                     f"_mm512_{op}_{suffix}(x, y), {ones}); }}")
    else:
        unordered = f"{prefix}_cmpunord_{suffix}(x, y)" if size == 16 else f"{prefix}_cmp_{suffix}(x, y, _CMP_UNORD_Q)"
        intrinsic = head + f"return ({vt}){prefix}_or_{suffix}({prefix}_{op}_{suffix}(x, y), {unordered}); }}"
    return name, "\n".join([typedef, f"#if defined(__x86_64__) && defined({guard})", "#include <immintrin.h>",
                             intrinsic, "#else", generic, "#endif"])


#: x86 vectors by size in bytes: the macro that says the CPU has them, the intrinsics' prefix
#: and the float vector type (``d`` appended for doubles).
_X86_VECTORS = {16: ("__SSE2__", "_mm", "__m128"), 32: ("__AVX__", "_mm256", "__m256"),
                64: ("__AVX512F__", "_mm512", "__m512")}

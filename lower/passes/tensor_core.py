"""The tensor-core intrinsics a tensorized schedule calls, as TVM's ``wmma`` builtins:
``tvm_fill_fragment``, ``tvm_load_matrix_sync``, ``tvm_store_matrix_sync`` and ``tvm_mma_sync``.

A fragment buffer (storage scope ``wmma.matrix_a``, ``wmma.matrix_b`` or ``wmma.accumulator``)
holds fragments of ``rows x cols`` elements one after another; a call names one by its index.
:func:`infer_fragments` finds each buffer's shape ``m, n, k`` and layout from the calls, as TVM's
InferFragment does. :func:`expand_wmma` gives the calls their meaning on a CPU: loops over a
fragment's elements, row-major within it, the product summed over ``k`` in order, so that a
tensorized schedule computes what the schedule without tensorize computes, bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

from lower.errors import LoweringError
from lower.ir.stmt import Buffer, BufferView, Evaluate, For, ForKind, Load, Stmt, Store, seq
from lower.ir.stmt_functor import ir_transform, walk
from schedule import arith
from schedule.ir.expr import Call, Expr, IntImm, StringImm, Var

FILL, LOAD, STORE, MMA = "tvm_fill_fragment", "tvm_load_matrix_sync", "tvm_store_matrix_sync", "tvm_mma_sync"
WMMA_CALLS = (FILL, LOAD, STORE, MMA)
MATRIX_A, MATRIX_B, ACCUMULATOR = "wmma.matrix_a", "wmma.matrix_b", "wmma.accumulator"
LAYOUTS = ("row_major", "col_major")
#: How many arguments each call takes.
_ARITY = {FILL: 6, LOAD: 8, STORE: 8, MMA: 8}


@dataclass(frozen=True)
class Fragment:
    """The shape ``m x n x k`` of the multiply a fragment takes part in, its scope, and the
    layout its loads read (``""`` for an accumulator)."""

    scope: str
    m: int
    n: int
    k: int
    layout: str = ""

    @property
    def rows(self) -> int:
        return self.k if self.scope == MATRIX_B else self.m

    @property
    def cols(self) -> int:
        return self.k if self.scope == MATRIX_A else self.n

    @property
    def size(self) -> int:
        """Elements per fragment."""
        return self.rows * self.cols


def wmma_call(s: Stmt) -> Call | None:
    """The wmma call *s* evaluates, if it is one."""
    if isinstance(s, Evaluate) and isinstance(s.value, Call) and s.value.name in WMMA_CALLS:
        return s.value
    return None


def fragment_buffer(call: Call, k: int) -> Buffer:
    """The fragment buffer that argument *k* of *call* names."""
    arg = call.args[k]
    buf = arg.buffer if isinstance(arg, BufferView) else None
    if buf is None or not buf.scope.startswith("wmma."):
        raise LoweringError(f"build: {call.name}: argument {k} must be a buffer in wmma.matrix_a, wmma.matrix_b or "
                            f"wmma.accumulator memory (cache_read/cache_write into that scope), not {arg}")
    return buf


def infer_fragments(root: Stmt) -> dict[Buffer, Fragment]:
    """Each fragment buffer's shape and layout, from the calls under *root* that name it.

    :raises LoweringError: for a call with the wrong arguments, shapes that disagree, or an
        ``mma_sync`` whose fragments are neither filled nor loaded anywhere.
    """
    found: dict[Buffer, Fragment] = {}
    products = []
    for s in walk(root):
        call = wmma_call(s)
        if call is None:
            continue
        if len(call.args) != _ARITY[call.name]:
            raise LoweringError(f"build: {call.name}: takes {_ARITY[call.name]} arguments, got {len(call.args)}")
        if call.name == MMA:
            products.append(call)
            continue
        buf = fragment_buffer(call, 0)
        m, n, k = (_positive(call, i) for i in (1, 2, 3))
        layout = ""
        if call.name != FILL:
            text = call.args[7]
            if not (isinstance(text, StringImm) and text.value in LAYOUTS):
                raise LoweringError(f"build: {call.name}: argument 7 is the memory layout, 'row_major' or 'col_major', "
                                    f"not {text}")
            layout = text.value if buf.scope != ACCUMULATOR else ""
        if call.name == FILL and buf.scope != ACCUMULATOR:
            raise LoweringError(f"build: {call.name}: fills an accumulator, not '{buf.name}' in {buf.scope} memory")
        if call.name == STORE and buf.scope != ACCUMULATOR:
            raise LoweringError(f"build: {call.name}: stores an accumulator, not '{buf.name}' in {buf.scope} memory")
        frag = Fragment(buf.scope, m, n, k, layout)
        known = found.get(buf)
        if known is not None and (known.m, known.n, known.k) != (m, n, k):
            raise LoweringError(f"build: {call.name}: fragment '{buf.name}' is {m}x{n}x{k} here but "
                                f"{known.m}x{known.n}x{known.k} in another call")
        if known is not None and layout and known.layout and known.layout != layout:
            raise LoweringError(f"build: {call.name}: fragment '{buf.name}' is loaded {layout} here but "
                                f"{known.layout} in another call")
        if known is None or (layout and not known.layout):
            found[buf] = frag
    for call in products:
        frags = []
        for i, scope in zip((0, 2, 4, 6), (ACCUMULATOR, MATRIX_A, MATRIX_B, ACCUMULATOR)):
            buf = fragment_buffer(call, i)
            if buf.scope != scope:
                raise LoweringError(f"build: {MMA}: argument {i} must be a fragment in {scope} memory, not "
                                    f"'{buf.name}' in {buf.scope}")
            if buf not in found:
                raise LoweringError(f"build: {MMA}: fragment '{buf.name}' is never filled or loaded, so its shape is "
                                    "unknown; fill or load it with the same m, n, k")
            frags.append(found[buf])
        if len({(f.m, f.n, f.k) for f in frags}) != 1:
            shapes = ", ".join(f"{f.m}x{f.n}x{f.k}" for f in frags)
            raise LoweringError(f"build: {MMA}: its four fragments must share one shape m x n x k, not {shapes}")
    for buf, frag in list(found.items()):
        if buf.scope != ACCUMULATOR and not frag.layout:
            found[buf] = Fragment(frag.scope, frag.m, frag.n, frag.k, "row_major")  # as TVM defaults it
    return found


def _positive(call: Call, i: int) -> int:
    v = call.args[i]
    if not (isinstance(v, IntImm) and v.value > 0):
        raise LoweringError(f"build: {call.name}: argument {i} (the fragment's {'mnk'[i - 1]}) must be a positive "
                            f"constant, not {v}")
    return int(v.value)


def expand_wmma(body: Stmt) -> Stmt:
    """*body* with each wmma call replaced by the loops that compute it on a CPU."""
    if not any(wmma_call(s) is not None for s in walk(body)):
        return body
    expander = _Expander(infer_fragments(body))

    def post(node: object) -> Stmt | None:
        call = wmma_call(node) if isinstance(node, Stmt) else None
        return None if call is None else expander.expand(call)
    return ir_transform(body, None, post, only_enable=["tir.Evaluate"])


@dataclass
class _Pointer:
    """Memory a load or store reaches: *buffer* from element *start*, *extent* elements."""

    buffer: Buffer
    start: Expr
    extent: Expr

    def at(self, i: Expr) -> tuple[Expr, tuple[Expr, ...]]:
        """The flat index of element *i*, and its check against the pointer's window."""
        index = arith.add(self.start, i)
        return index, (index, self.start, self.extent)


class _Expander:
    def __init__(self, frags: dict[Buffer, Fragment]) -> None:
        self.frags = frags

    def expand(self, call: Call) -> Stmt:
        if call.name == MMA:
            return self.mma(call)
        buf = fragment_buffer(call, 0)
        frag = self.frags[buf]
        r, c = Var("wmma_r", "int32"), Var("wmma_c", "int32")
        element, checks = self.element(buf, frag, call.args[4], r, c)
        if call.name == FILL:
            body: Stmt = Store(buf, arith.cast(buf.dtype, call.args[5]), element, checks, checked=True)
            return self.loops(frag, r, c, body)
        ptr = _pointer(call, 5)
        if ptr.buffer.dtype != buf.dtype:
            raise LoweringError(f"build: {call.name}: fragment '{buf.name}' holds {buf.dtype} but the memory it "
                                f"{'reads' if call.name == LOAD else 'writes'} ('{ptr.buffer.name}') holds "
                                f"{ptr.buffer.dtype}")
        stride = call.args[6]
        layout = call.args[7].value  # type: ignore[attr-defined]
        offset = arith.add(arith.mul(r, stride), c) if layout == "row_major" else arith.add(arith.mul(c, stride), r)
        index, window = ptr.at(offset)
        if call.name == LOAD:
            body = Store(buf, Load(ptr.buffer, index, window, checked=True), element, checks, checked=True)
        else:
            body = Store(ptr.buffer, Load(buf, element, checks, checked=True), index, window, checked=True)
        return self.loops(frag, r, c, body)

    def mma(self, call: Call) -> Stmt:
        d, a, b, c = (fragment_buffer(call, i) for i in (0, 2, 4, 6))
        shape = self.frags[d]
        i, j, k = Var("wmma_i", "int32"), Var("wmma_j", "int32"), Var("wmma_k", "int32")
        di, dchecks = self.element(d, self.frags[d], call.args[1], i, j)
        ci, cchecks = self.element(c, self.frags[c], call.args[7], i, j)
        ai, achecks = self.element(a, self.frags[a], call.args[3], i, k)
        bi, bchecks = self.element(b, self.frags[b], call.args[5], k, j)
        acc = d.dtype

        def read(buf: Buffer, index: Expr, checks: tuple[Expr, ...]) -> Expr:
            return arith.cast(acc, Load(buf, index, checks, checked=True))
        term = arith.mul(read(a, ai, achecks), read(b, bi, bchecks))
        update = Store(d, arith.add(Load(d, di, dchecks, checked=True), term), di, dchecks, checked=True)
        inner = seq(Store(d, read(c, ci, cchecks), di, dchecks, checked=True),
                    For(k, arith.const(0), arith.const(shape.k), ForKind.SERIAL, update))
        return For(i, arith.const(0), arith.const(shape.m), ForKind.SERIAL,
                   For(j, arith.const(0), arith.const(shape.n), ForKind.SERIAL, inner))

    @staticmethod
    def element(buf: Buffer, frag: Fragment, which: Expr, r: Var, c: Var) -> tuple[Expr, tuple[Expr, ...]]:
        """The flat index of element (*r*, *c*) of fragment *which* of *buf*, and its check."""
        base = arith.mul(arith.cast("int32", which) if which.dtype != "int32" else which, frag.size)
        index = arith.add(base, arith.add(arith.mul(r, frag.cols), c))
        return index, (index, arith.const(0), buf.size)

    @staticmethod
    def loops(frag: Fragment, r: Var, c: Var, body: Stmt) -> Stmt:
        return For(r, arith.const(0), arith.const(frag.rows), ForKind.SERIAL,
                   For(c, arith.const(0), arith.const(frag.cols), ForKind.SERIAL, body))


def _pointer(call: Call, k: int) -> _Pointer:
    """The memory argument *k* of *call* points at: an ``access_ptr`` or a buffer."""
    arg = call.args[k]
    if isinstance(arg, Call) and arg.name == "tvm_access_ptr" and isinstance(arg.args[1], BufferView):
        return _Pointer(arg.args[1].buffer, arg.args[2], arg.args[3])
    if isinstance(arg, BufferView):
        return _Pointer(arg.buffer, arg.offset, arith.sub(arg.buffer.size, arg.offset))
    raise LoweringError(f"build: {call.name}: argument {k} is the memory to "
                        f"{'read' if call.name == LOAD else 'write'}: a buffer's access_ptr, not {arg}")

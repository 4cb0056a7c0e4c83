"""Statements as TVMScript writes them (TVM v0.9-v0.14's printer), in frames.

Each loop, branch, attribute, allocation and ``let`` opens a frame: the lines of its body.
A buffer view or free variable is declared in the innermost frame that encloses all its uses
(``A_1 = T.Buffer((1024,), data=A.data)``), at the place of its first use. A scoped statement
that is the last of its frame prints flat (``T.attr(...)`` then its body at the same depth),
elsewhere as ``with ...:``, as TVM's concise scoping does. Bodies are printed on an explicit
stack: a nest a thousand loops deep prints at Python's default recursion limit.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from lower.ir.script.doc import Block, Doc, Line
from lower.ir.script.expr import ExprScript, ScriptNames, float_text, str_literal, type_text
from lower.ir.script.uses import FUNCTION
from lower.ir.stmt import (
    Allocate,
    AssertStmt,
    AttrStmt,
    Buffer,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    Prefetch,
    ProducerConsumer,
    SeqStmt,
    Stmt,
    Store,
    While,
)
from schedule.base.recursion import run
from schedule.ir import arith
from schedule.ir.expr import Call, Expr, FloatImm, IntImm, StringImm, Var
from schedule.ir.functor import post_order_visit
from schedule.ir.itervar import IterVar
from schedule.ir.reduce import CommReducer

_LOOP_KINDS = {ForKind.PARALLEL: "T.parallel", ForKind.VECTORIZED: "T.vectorized", ForKind.UNROLLED: "T.unroll"}
_LAUNCHED = ("thread_extent", "virtual_thread")
Steps = Generator[Any, Any, list[Doc]]


class Frame:
    """The lines of one body; *key* is the id of the statement that opened it."""

    __slots__ = ("concise", "key", "stmts")

    def __init__(self, key: int) -> None:
        self.key, self.stmts, self.concise = key, [], False


class _Expr(ExprScript):
    """Expressions whose first use of a buffer view or free variable declares it."""

    def __init__(self, printer: StmtScript) -> None:
        super().__init__(printer.names)
        self.printer = printer

    def var_name(self, v: Var) -> str:
        return self.printer.var_ref(v)

    def buffer_name(self, buffer: object) -> str:
        return self.printer.buffer_ref(buffer)

    def data_text(self, buffer: object) -> str:
        data = self.printer.data.get(id(buffer), (None, []))[0]
        return data if data is not None else super().data_text(buffer)


class StmtScript:
    """The TVMScript lines of statements. *prefixes* is :func:`~lower.ir.script.uses.common_prefixes`
    of the function body."""

    def __init__(self, names: ScriptNames, prefixes: dict[int, tuple[int, ...]], decl_buffer: bool = False) -> None:
        self.names, self.prefixes = names, prefixes
        #: Views as ``T.decl_buffer`` (what TVM 0.25+ reads and builds) instead of ``T.Buffer``.
        self.view_call = "T.decl_buffer" if decl_buffer else "T.Buffer"
        self.frames: list[Frame] = []
        self.expr = _Expr(self)
        #: For each buffer id: the ``data=`` text of its view and its further keywords.
        self.data: dict[int, tuple[str | None, list[str]]] = {}

    # -- expressions and declarations ------------------------------------------------------

    def text(self, e: Expr) -> str:
        return self.expr.text(e)

    def lowest_frame(self, key: int) -> Frame:
        """The innermost open frame that encloses every use of *key* (the outermost frame of
        a statement that opens two, as a branch and its loop do)."""
        by_key: dict[int, Frame] = {}
        for f in self.frames:
            by_key.setdefault(f.key, f)
        for k in reversed(self.prefixes.get(key, (FUNCTION,))):
            if k in by_key:
                return by_key[k]
        return self.frames[0]

    def define(self, obj: Any, base: str) -> str:
        return self.names(obj, base)

    def var_ref(self, v: Var) -> str:
        if v in self.names:
            return self.names(v, v.name)
        frame = self.lowest_frame(id(v))
        name = self.names(v, v.name)
        frame.stmts.append(Line(f"{name} = {type_text(v.dtype)}()"))
        return name

    def buffer_ref(self, buffer: Any) -> str:
        if buffer in self.names:
            return self.names(buffer, buffer.name)
        frame = self.lowest_frame(id(buffer))
        name = self.names(buffer, buffer.name)
        frame.stmts.append(Line(f"{name} = {self.buffer_decl(buffer)}"))
        return name

    def buffer_decl(self, buffer: Buffer) -> str:
        """``T.Buffer((size,), dtype, data=..., scope=...)``: the flat view of a buffer."""
        args = [f"({self.text(buffer.size)},)"]
        if buffer.dtype != "float32":
            args.append(str_literal(buffer.dtype))
        data, extra = self.data.get(id(buffer), (None, []))
        if data is None and buffer.pointer is not None:  # memory a pointer variable points to
            data, at = self.text(buffer.pointer.data), buffer.pointer
            extra = [*([f"elem_offset={self.text(at.elem_offset)}"] if at.elem_offset is not None else []),
                     *([f"strides=({', '.join(self.text(x) for x in at.strides)},)"] if at.strides else []), *extra]
        if data is not None:
            args.append(f"data={data}")
        if buffer.scope != "global":
            args.append(f"scope={str_literal(buffer.scope)}")
        return f"{self.view_call}({', '.join([*args, *extra])})"

    def node_text(self, node: Any) -> str:
        """An attribute's node: an expression, a buffer, an iteration variable, a reducer."""
        if isinstance(node, Buffer):
            return self.buffer_ref(node)
        if isinstance(node, IterVar):
            dom = f"T.Range({self.text(node.dom.min)}, {self.text(node.dom.extent)})" if node.dom else "None"
            return (f"T.iter_var({self.var_ref(node.var)}, {dom}, {str_literal(node.iter_type.name)}, "
                    f"{str_literal(node.thread_tag)})")
        if isinstance(node, CommReducer):
            return self.reducer_text(node)
        if isinstance(node, Expr):
            return self.text(node)
        return str_literal(str(getattr(node, "name", node)))

    def reducer_text(self, r: CommReducer) -> str:
        params = [self.define(v, v.name) for v in (*r.lhs, *r.rhs)]
        results = [self.text(x) for x in r.result]
        result = results[0] if len(results) == 1 else f"({', '.join(results)})"
        identity = ", ".join(self.text(x) for x in r.identity_element)
        return f"T.comm_reducer(lambda {', '.join(params)}: {result}, [{identity}])"

    # -- statements ------------------------------------------------------------------------

    def __call__(self, s: Stmt) -> list[Doc]:
        return run(self.dispatch(s), self.dispatch)

    def dispatch(self, s: Stmt) -> Any:
        method = getattr(self, "visit_" + s.visit_name, None)
        if method is None:
            raise TypeError(f"TVMScript: no text for {type(s).__name__} statements (lower the function first)")
        return method(s)

    def body(self, s: Stmt, frame: Frame) -> Generator[Any, Any, None]:
        """The lines of *s* into *frame* (TVM's ``AsDocBody``)."""
        items = s.seq if isinstance(s, SeqStmt) else (s,)
        for i, x in enumerate(items):
            frame.concise = i == len(items) - 1
            frame.stmts.extend((yield x))

    def open(self, s: Any) -> Frame:
        frame = Frame(id(s))
        self.frames.append(frame)
        return frame

    def close(self) -> list[Doc]:
        return self.frames.pop().stmts

    def scoped(self, concise: bool, lhs: str | None, rhs: str, stmts: list[Doc]) -> list[Doc]:
        """``lhs = rhs`` then the body flat, or ``with rhs as lhs:`` around it."""
        if concise:
            return [Line(f"{lhs} = {rhs}" if lhs else rhs), *stmts]
        return [Block(f"with {rhs} as {lhs}:" if lhs else f"with {rhs}:", stmts)]

    def visit_for(self, s: For) -> Steps:
        grid: list[For] = []
        grid_vars: set[int] = set()
        loop: Stmt = s
        while isinstance(loop, For):
            if (loop.kind is not ForKind.SERIAL or not _is_zero(loop.min) or loop.annotations
                    or any(id(v) in grid_vars for v in _vars(loop.extent))):
                break
            grid.append(loop)
            grid_vars.add(id(loop.loop_var))
            loop = loop.body
        frame = self.open(s)
        if len(grid) > 1:
            lhs, rhs = [], []
            for g in grid:
                lhs.append(self.define(g.loop_var, g.loop_var.name))
                rhs.append(self.text(g.extent))
            yield from self.body(grid[-1].body, frame)
            return [Block(f"for {', '.join(lhs)} in T.grid({', '.join(rhs)}):", self.close())]
        var = self.define(s.loop_var, s.loop_var.name)
        bounds = (self.text(s.extent) if _is_zero(s.min)
                  else f"{self.text(s.min)}, {self.text(arith.add(s.min, s.extent))}")
        kind = _LOOP_KINDS.get(s.kind, "T.serial" if s.annotations else "range")
        if s.annotations:
            items = ", ".join(f"{str_literal(k)}: {self.annotation_text(v)}" for k, v in s.annotations)
            bounds += f", annotations={{{items}}}"
        yield from self.body(s.body, frame)
        return [Block(f"for {var} in {kind}({bounds}):", self.close())]

    def annotation_text(self, value: Any) -> str:
        return self.text(value) if isinstance(value, Expr) else literal_text(value)

    def visit_store(self, s: Store) -> list[Doc]:
        buffer = self.buffer_ref(s.buffer)
        index = self.expr.index_text(s.index)
        return [Line(f"{buffer}[{index}] = {self.text(s.value)}")]

    def visit_evaluate(self, s: Evaluate) -> list[Doc]:
        value = self.text(s.value)
        return [Line(value if isinstance(s.value, Call) else f"T.evaluate({value})")]

    def visit_assert_stmt(self, s: AssertStmt) -> list[Doc]:
        return [Line(f"assert {self.text(s.condition)}, {str_literal(s.message)}")]

    def visit_seq_stmt(self, s: SeqStmt) -> Steps:
        frame = self.open(s)
        yield from self.body(s, frame)
        return self.close()

    def visit_producer_consumer(self, s: ProducerConsumer) -> Steps:
        return (yield s.body)  # TVM's lowered code has no produce markers

    def visit_if_then_else(self, s: IfThenElse) -> Steps:
        docs: list[Doc] = [Block(f"if {self.text(s.condition)}:")]
        yield from self.body(s.then_case, self.open(s.then_case))
        docs[0].body = self.close()  # type: ignore[union-attr]
        if s.else_case is not None:
            yield from self.body(s.else_case, self.open(s.else_case))
            stmts = self.close()
            if stmts:
                docs.append(Block("else:", stmts))
        return docs

    def visit_while(self, s: While) -> Steps:
        condition = self.text(s.condition)
        yield from self.body(s.body, self.open(s))
        return [Block(f"while {condition}:", self.close())]

    def visit_let_stmt(self, s: LetStmt) -> Steps:
        concise = self.frames[-1].concise
        value = self.text(s.value)
        frame = self.open(s)
        defined = s.var in self.names
        var = self.define(s.var, s.var.name)
        yield from self.body(s.body, frame)
        stmts = self.close()
        if defined:
            return [Block(f"with T.LetStmt({value}, var={var}):", stmts)]
        if concise:
            return [Line(f"{var}: {type_text(s.var.dtype)} = {value}"), *stmts]
        return [Block(f"with T.LetStmt({value}) as {var}:", stmts)]

    def visit_allocate(self, s: Allocate) -> Steps:
        concise = self.frames[-1].concise
        buffer = s.buffer
        data = self.define(("data", id(buffer)), buffer.name)
        size, dtype, scope = self.text(buffer.size), str_literal(buffer.dtype), str_literal(buffer.scope)
        frame = self.open(s)
        if self.view_call == "T.decl_buffer":  # TVM 0.25+ has no T.allocate: a buffer of its own, flat
            self.data[id(buffer)] = (f"{data}.data", [])
            yield from self.body(s.body, frame)
            return self.scoped(True, data, f"T.alloc_buffer(({size},), {dtype}, scope={scope})", self.close())
        self.data[id(buffer)] = (data, [])
        yield from self.body(s.body, frame)
        return self.scoped(concise, data, f"T.allocate([{size}], {dtype}, {scope})", self.close())

    def visit_attr_stmt(self, s: AttrStmt) -> Steps:
        if s.key == "storage_scope" and isinstance(s.body, Allocate) and s.body.buffer is s.node:
            return (yield s.body)  # TVM's allocation carries its scope
        concise = self.frames[-1].concise
        lhs = None
        launched: Var | None = None
        if s.key in _LAUNCHED and isinstance(s.node, IterVar):
            rhs, launched = self.launch_thread(s)
        else:
            rhs = f"T.attr({self.node_text(s.node)}, {str_literal(s.key)}, {self.text(s.value)})"
        frame = self.open(s)
        if launched is not None:
            lhs = self.define(launched, launched.name)
        yield from self.body(s.body, frame)
        return self.scoped(concise, lhs, rhs, self.close())

    def launch_thread(self, s: AttrStmt) -> tuple[str, Var | None]:
        """``T.launch_thread(...)``, and the thread variable the statement defines, if any."""
        iv: IterVar = s.node
        if iv.var in self.names:
            thread, launched = self.names(iv.var, iv.var.name), None
        elif id(s) in self.prefixes.get(id(iv.var), ()):
            thread, launched = str_literal(iv.thread_tag), iv.var
        else:  # used outside this statement too: declared where all its uses are
            frame = self.lowest_frame(id(iv.var))
            thread, launched = self.define(iv.var, iv.var.name), None
            frame.stmts.append(Line(f"{thread} = T.env_thread({str_literal(iv.thread_tag)})"))
        return f"T.launch_thread({thread}, {self.text(s.value)})", launched

    def visit_prefetch(self, s: Prefetch) -> list[Doc]:
        bounds = ", ".join(f"T.Range({self.text(r.min)}, {self.text(r.extent)})" for r in s.bounds)
        return [Line(f"T.prefetch({str_literal(s.tensor.name)}, [{bounds}])")]


def _is_zero(e: Expr) -> bool:
    return isinstance(e, IntImm) and e.value == 0


def _vars(e: Expr) -> list[Var]:
    found: list[Var] = []
    post_order_visit(e, lambda x: found.append(x) if isinstance(x, Var) else None)
    return found


def literal_text(value: Any) -> str:
    """A Python value of a function attribute as TVM prints it."""
    if isinstance(value, bool):
        return f"T.bool({value})"
    if isinstance(value, str):
        return str_literal(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return float_text(value)
    if isinstance(value, (IntImm, FloatImm, StringImm)):
        return ExprScript().text(value)
    return str_literal(str(value))

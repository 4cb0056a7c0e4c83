"""TVMScript statements read back into our IR (the non-block subset TVM v0.13 prints and its
pass tests write).

A scoped statement written flat (``x = T.allocate(...)``, ``T.attr(...)``, ``x: T.int32 =
v``, ``assert c, "m"``) takes the statements after it in its block as its body, as TVM's
concise scoping means; ``with ...:`` takes its indented block.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from lower.ir.script.parse_expr import (
    Data,
    ExprReader,
    Thread,
    View,
    _dtype,
    _e,
    thread_iter_var,
)
from lower.ir.stmt import (
    NO_OP,
    Allocate,
    AssertStmt,
    AttrStmt,
    Buffer,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    PointerBinding,
    Stmt,
    Store,
    While,
    seq,
)
from schedule.base.recursion import run
from schedule.ir import arith
from schedule.ir.expr import Expr, StringImm, Var
from schedule.ir.itervar import IterVar

_KINDS = {"serial": ForKind.SERIAL, "parallel": ForKind.PARALLEL, "vectorized": ForKind.VECTORIZED,
          "unroll": ForKind.UNROLLED}
Wrap = Callable[[Stmt], Stmt]


class StmtReader(ExprReader):
    """Statements of a function body into our IR."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        #: The variables declared by ``x = T.int32()`` (a loop of that name binds the same one).
        self.declared: set[int] = set()

    def block(self, stmts: list[ast.stmt]) -> Stmt:
        """The statements of one block, each flat-scoped one wrapping those after it."""
        self.scope.frames.append({})
        try:
            pieces: list[Stmt | Wrap] = []
            for node in stmts:
                pieces.append(self.statement(node))
        finally:
            self.scope.frames.pop()
        out: Stmt | None = None
        for piece in reversed(pieces):
            if isinstance(piece, Stmt):
                out = seq(piece, out) if out is not None else piece
            else:
                out = piece(out if out is not None else NO_OP)
        return out if out is not None else NO_OP

    def statement(self, node: ast.stmt) -> Stmt | Wrap:
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            raise self.error(f"{type(node).__name__} statements are not part of TVMScript's non-block subset", node)
        return method(node)

    def stmt_Pass(self, node: ast.Pass) -> Stmt:  # noqa: N802
        return NO_OP

    def stmt_Expr(self, node: ast.Expr) -> Stmt | Wrap:  # noqa: N802
        value = node.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return NO_OP  # a docstring
        if isinstance(value, ast.Call):
            head = self(value.func)
            if head == ("T", "func_attr"):
                return NO_OP  # read by the function
            if head == ("T", "evaluate"):
                return Evaluate(self.expr(value.args[0]))
            scoped = self.scoped_call(head, value)
            if scoped is not None:
                return scoped[1]
        return Evaluate(self.expr(value))

    def stmt_Assert(self, node: ast.Assert) -> Stmt:  # noqa: N802
        message = self(node.msg) if node.msg is not None else ""
        if isinstance(message, StringImm):
            message = message.value
        if not isinstance(message, str):
            raise self.error("an assertion's message is a string", node)
        return AssertStmt(self.expr(node.test), message)

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> Wrap:  # noqa: N802
        if not isinstance(node.target, ast.Name) or node.value is None:
            raise self.error("a typed assignment binds a name to a value (x: T.int32 = ...)", node)
        note = node.annotation
        if isinstance(note, ast.Call) and self(note.func) == ("T", "handle"):  # x: T.handle("float32") = ...
            dtype: Any = ("T", "handle")
        else:
            dtype = self(note)
        if not (isinstance(dtype, tuple) and dtype[0] == "T"):
            raise self.error("a let's type is T.<dtype>", node)
        value = self.expr(node.value)
        var = Var(node.target.id, dtype[1])
        self.scope.bind(node.target.id, var)
        return lambda body: LetStmt(var, value, body)

    def stmt_Assign(self, node: ast.Assign) -> Stmt | Wrap:  # noqa: N802
        if len(node.targets) != 1:
            raise self.error("one name per assignment", node)
        target = node.targets[0]
        if isinstance(target, ast.Subscript):
            return self.store(target, node.value)
        if not isinstance(target, ast.Name):
            raise self.error("an assignment binds one name, or stores into a buffer (A[i] = ...)", node)
        name = target.id
        if isinstance(node.value, ast.Call):
            head = self(node.value.func)
            scoped = self.scoped_call(head, node.value, name)
            if scoped is not None:
                value, wrap = scoped
                if value is not None:
                    self.scope.bind(name, value)
                return wrap
            if head == ("T", "Buffer") or head == ("T", "decl_buffer") and _has_data(node.value):
                self.scope.bind(name, self.buffer_view(node.value, name))
                return NO_OP
            if head == ("T", "match_buffer"):
                raise self.error("T.match_buffer binds a parameter, at the top of the function", node)
            if head == ("T", "env_thread"):
                tag = self(node.value.args[0])
                self.scope.bind(name, Thread(thread_iter_var(tag)))
                return NO_OP
        value = self(node.value)
        if isinstance(value, tuple) and len(value) == 2 and value[0] == "declare":
            var = Var(name, value[1])
            self.declared.add(id(var))
            self.scope.bind(name, var)
            return NO_OP
        if isinstance(value, (int, float)) and not isinstance(value, bool) or isinstance(value, (View, Data)):
            self.scope.bind(name, value)  # a Python value or another name for a buffer
            return NO_OP
        value = _e(value)
        var = Var(name, value.dtype)
        self.scope.bind(name, var)
        return lambda body: LetStmt(var, value, body)

    def store(self, target: ast.Subscript, value_node: ast.AST) -> Stmt:
        view = self(target.value)
        if not isinstance(view, View):
            raise self.error("only a buffer is stored into (A_1[i] = ...)", target)
        indices = run(self._guarded(self.indices(target.slice), target), self.dispatch)
        value = self.expr(value_node)
        return Store(view.flat, value, view.index(indices))

    def stmt_With(self, node: ast.With) -> Stmt:  # noqa: N802
        if len(node.items) != 1 or not isinstance(node.items[0].context_expr, ast.Call):
            raise self.error("with T.<scope>(...) [as name]: one scope per with", node)
        item = node.items[0]
        name = None
        if item.optional_vars is not None:
            if not isinstance(item.optional_vars, ast.Name):
                raise self.error("with ... as <one name>", node)
            name = item.optional_vars.id
        head = self(item.context_expr.func)
        scoped = self.scoped_call(head, item.context_expr, name)
        if scoped is None:
            raise self.error(f"{_show(head)} is not a scope TVMScript's non-block subset reads in a with", node)
        value, wrap = scoped
        self.scope.frames.append({name: value} if name is not None and value is not None else {})
        try:
            return wrap(self.block(node.body))
        finally:
            self.scope.frames.pop()

    def scoped_call(self, head: Any, call: ast.Call, name: str | None = None) -> tuple[Any, Wrap] | None:
        """What a scoped call binds, and how it wraps its body; None if *head* is no scope."""
        if not (isinstance(head, tuple) and len(head) == 2 and head[0] == "T"):
            return None
        kind = head[1]
        if kind == "allocate":
            return self.allocate(call, name or "buffer")
        if kind == "attr":
            node, key, value = (self(a) for a in call.args)
            node = node.flat if isinstance(node, (View, Data)) else node
            node = _e(node) if isinstance(node, (int, float)) and not isinstance(node, bool) else node
            key = key.value if isinstance(key, StringImm) else key
            value = StringImm(value) if isinstance(value, str) else _e(value)
            return None, lambda body: AttrStmt(node, key, value, body)
        if kind == "launch_thread":
            return self.launch_thread(call)
        if kind in ("LetStmt", "let"):
            value = self.expr(call.args[0])
            given = next((k.value for k in call.keywords if k.arg == "var"), None)
            var = self(given) if given is not None else Var(name or "v", value.dtype)
            return var, lambda body: LetStmt(var, value, body)
        if kind == "Assert":
            condition, message = self.expr(call.args[0]), self(call.args[1])
            message = message.value if isinstance(message, StringImm) else message
            return None, lambda body: seq(AssertStmt(condition, message), body)
        if kind in ("decl_buffer", "alloc_buffer") and not _has_data(call):
            return self.decl_buffer(call, name or "buffer")
        return None

    def allocate(self, call: ast.Call, name: str) -> tuple[Any, Wrap]:
        args = [self(a) for a in call.args]
        kwargs = {k.arg: self(k.value) for k in call.keywords}
        extents = args[0] if args else kwargs.get("extents")
        dtype = _dtype(args[1] if len(args) > 1 else kwargs.get("dtype", "float32"))
        scope = args[2] if len(args) > 2 else kwargs.get("scope", "global")
        if not isinstance(extents, (list, tuple)) or not isinstance(scope, str):
            raise self.error("T.allocate([extents], dtype, scope) is the form read", call)
        buf = Buffer(name, dtype, tuple(_e(x) for x in extents), scope)
        return Data(buf), lambda body: Allocate(buf, body)

    def decl_buffer(self, call: ast.Call, name: str) -> tuple[Any, Wrap]:
        shape, dtype, kwargs = self.buffer_args(call)
        scope = kwargs.get("scope", "global")
        buf = Buffer(name, dtype, shape, scope)
        return View(buf, shape), lambda body: Allocate(buf, body)

    def buffer_args(self, call: ast.Call) -> tuple[tuple[Expr, ...], str, dict[str, Any]]:
        args = [self(a) for a in call.args]
        kwargs = {k.arg: self(k.value) for k in call.keywords}
        shape = args[0] if args else kwargs.pop("shape", None)
        if isinstance(shape, (int, Expr)):
            shape = (shape,)
        if not isinstance(shape, (tuple, list)):
            raise self.error("a buffer's shape is a tuple: T.Buffer((16, 16), \"float32\")", call)
        dtype = _dtype(args[1] if len(args) > 1 else kwargs.pop("dtype", "float32"))
        return tuple(_e(x) for x in shape), dtype, kwargs

    def buffer_view(self, call: ast.Call, name: str) -> View:
        """``T.Buffer(shape, dtype, data=..., strides=..., elem_offset=...)``: a view of
        existing storage, or (without data) of storage of its own."""
        shape, dtype, kwargs = self.buffer_args(call)
        data = kwargs.get("data")
        strides = tuple(_e(x) for x in kwargs.get("strides", ()) or ())
        offset = kwargs.get("elem_offset")
        offset = None if offset is None or arith.value_of(_e(offset)) == 0 else _e(offset)
        if isinstance(data, Data):
            if data.flat.dtype != dtype:
                raise self.error(f"the view {name!r} reads {dtype} from storage of {data.flat.dtype}", call)
            return View(data.flat, shape, strides, offset)
        if isinstance(data, Var) and data.dtype.startswith("handle"):  # memory a pointer variable points to
            binding = PointerBinding(data, offset, strides)
            return View(Buffer(name, dtype, shape, kwargs.get("scope", "global"), pointer=binding), shape, strides)
        if data is not None:
            raise self.error("data= takes a buffer's data (A.data), an allocation or a pointer variable", call)
        return View(Buffer(name, dtype, shape, kwargs.get("scope", "global")), shape, strides, offset)

    def launch_thread(self, call: ast.Call) -> tuple[Any, Wrap]:
        thread, extent = self(call.args[0]), self.expr(call.args[1])
        if isinstance(thread, str):
            iv = thread_iter_var(thread)
        elif isinstance(thread, Var):
            found = self._thread_of(thread)
            if found is None:
                raise self.error("T.launch_thread takes a thread tag or a T.env_thread", call)
            iv = found
        else:
            raise self.error("T.launch_thread takes a thread tag or a T.env_thread", call)
        key = "virtual_thread" if iv.thread_tag.startswith("vthread") else "thread_extent"
        return iv.var, lambda body: AttrStmt(iv, key, extent, body)

    def _thread_of(self, var: Var) -> IterVar | None:
        for frame in reversed(self.scope.frames):
            for value in frame.values():
                if isinstance(value, Thread) and value.iter_var.var is var:
                    return value.iter_var
        return None

    def stmt_For(self, node: ast.For) -> Stmt:  # noqa: N802
        if node.orelse:
            raise self.error("a loop's else is not part of TVMScript", node)
        it = node.iter
        if not isinstance(it, ast.Call):
            raise self.error("a loop iterates over range(...), T.grid(...) or T.serial/parallel/vectorized/unroll",
                             node)
        head = self(it.func)
        args = [self.expr(a) for a in it.args]
        kwargs = {k.arg: self(k.value) for k in it.keywords}
        if head == ("T", "grid"):
            targets = node.target.elts if isinstance(node.target, ast.Tuple) else [node.target]
            if len(targets) != len(args):
                raise self.error(f"T.grid of {len(args)} extents binds {len(args)} names", node)
            loops = [(self._loop_var(t, e), arith.const(0, e.dtype), e, ForKind.SERIAL) for t, e in zip(targets, args)]
        else:
            if head is range:
                kind = ForKind.SERIAL
            elif isinstance(head, tuple) and head[0] == "T" and (head[1] in _KINDS or head[1] == "thread_binding"):
                kind = _KINDS.get(head[1])
            else:
                raise self.error(f"a loop over {_show(head)} is not read", node)
            lo, hi = (args[0], args[1]) if len(args) > 1 else (arith.const(0, args[0].dtype), args[0])
            extent = arith.sub(hi, lo)
            var = self._loop_var(node.target, extent)
            if kind is None:  # T.thread_binding: a launched thread
                tag = kwargs.get("thread")
                iv = thread_iter_var(tag)
                self.scope.frames.append({node.target.id: iv.var})  # type: ignore[union-attr]
                try:
                    body = self.block(node.body)
                finally:
                    self.scope.frames.pop()
                return AttrStmt(iv, "thread_extent", extent, body)
            loops = [(var, lo, extent, kind)]
        annotations = kwargs.get("annotations") or {}
        if not isinstance(annotations, dict):
            raise self.error("a loop's annotations are a dictionary", node)
        notes = tuple((k, _e(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v)
                      for k, v in annotations.items())
        self.scope.frames.append({name: loop[0] for name, loop in zip(_names(node.target), loops)})
        try:
            body = self.block(node.body)
        finally:
            self.scope.frames.pop()
        for k, (var, lo, extent, kind) in enumerate(reversed(loops)):
            body = For(var, lo, extent, kind, body, notes if k == len(loops) - 1 else ())
        return body

    def _loop_var(self, target: ast.AST, extent: Expr) -> Var:
        if not isinstance(target, ast.Name):
            raise self.error("a loop binds one name", target)
        declared = self.scope.lookup(target.id)
        if isinstance(declared, Var) and declared.dtype == extent.dtype and self._declared(declared):
            return declared  # declared before (x = T.int32()) for a use outside the loop
        return Var(target.id, extent.dtype)

    def _declared(self, var: Var) -> bool:
        return id(var) in self.declared

    def stmt_If(self, node: ast.If) -> Stmt:  # noqa: N802
        condition = self.expr(node.test)
        then_case = self.block(node.body)
        else_case = self.block(node.orelse) if node.orelse else None
        return IfThenElse(condition, then_case, else_case)

    def stmt_While(self, node: ast.While) -> Stmt:  # noqa: N802
        if node.orelse:
            raise self.error("a while's else is not part of TVMScript", node)
        return While(self.expr(node.test), self.block(node.body))


def _names(target: ast.AST) -> list[str]:
    items = target.elts if isinstance(target, ast.Tuple) else [target]
    return [t.id for t in items if isinstance(t, ast.Name)]


def _has_data(call: ast.Call) -> bool:
    return any(k.arg == "data" for k in call.keywords)


def _show(head: Any) -> str:
    if isinstance(head, tuple) and len(head) == 2 and head[0] == "T":
        return f"T.{head[1]}"
    return getattr(head, "__name__", type(head).__name__)


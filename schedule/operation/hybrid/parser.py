"""A hybrid script's Python source as an extern operation: its loops, conditions, tensor
accesses and local variables become the statements of ``te.ir_builder``.

Tensor arguments are the operation's inputs, ``output_tensor`` its outputs (in the order the
script returns them). A variable assigned once with a value that reads no tensor is that
value; any other variable is a one-element local buffer of the block where it is first
assigned. ``const_range`` loops, and conditions on values known while parsing, are unrolled
and decided while parsing, as TVM does.
"""

from __future__ import annotations

import ast
import inspect
import operator
import textwrap
import weakref
from collections.abc import Callable, Generator
from typing import Any

from schedule.base.errors import ScheduleError, ScheduleTypeError
from schedule.base.recursion import drive
from schedule.ir import arith, intrinsics
from schedule.ir.buffer import DeclBuffer, decl_buffer
from schedule.ir.dtype import is_float
from schedule.ir.expr import Call, Expr
from schedule.ir.extern_stmt import Check, ElemLoad
from schedule.ir.functor import post_order_visit
from schedule.ir.ir_builder import BufferVar, IRBuilder
from schedule.ir.itervar import thread_axis
from schedule.operation.extern import extern_body
from schedule.operation.hybrid.op import hybrid_op
from schedule.operation.hybrid.runtime import DTYPES, LOOPS
from schedule.operation.tensor import Tensor

_LOOP_KINDS = {"range": "serial", "serial": "serial", "parallel": "parallel", "vectorize": "vectorize",
               "unroll": "unroll"}
_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.RShift: operator.rshift, ast.LShift: operator.lshift, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Eq: operator.eq, ast.NotEq: operator.ne,
}


class TensorRef:
    """A tensor inside the script: an input, an output or an allocation."""

    def __init__(self, buffer: DeclBuffer, access: BufferVar) -> None:
        self.buffer = buffer
        self.access = access

    @property
    def shape(self) -> tuple[Any, ...]:
        return tuple(_py(d) for d in self.buffer.shape)

    @property
    def dtype(self) -> str:
        return self.buffer.dtype


class _Local:
    """A variable of the script held in a one-element local buffer."""

    def __init__(self, access: BufferVar) -> None:
        self.access = access


class _Builtin:
    def __init__(self, name: str) -> None:
        self.name = name


#: The Python function each script's operation came from (its globals name the scripts it calls),
#: and the arguments of that call.
_SCRIPTS: weakref.WeakKeyDictionary[Any, tuple[Callable[..., Any], tuple[Any, ...]]] = weakref.WeakKeyDictionary()


def parse(func: Callable[..., Any], args: tuple[Any, ...], source: str | None = None) -> Any:
    """The output tensor(s) of the extern operation *func* describes, on the tensors in *args*;
    *source* is its text when Python cannot find it (a function compiled from a string)."""
    outs = _Parser(func, _definition(func, source)).run(args)
    _SCRIPTS[(outs if isinstance(outs, Tensor) else outs[0]).op] = (func, args)
    return outs


def script_of(op: Any) -> tuple[Callable[..., Any], tuple[Any, ...]] | None:
    """The Python function of the script *op* came from, and the arguments it was called
    with, while it lives."""
    return _SCRIPTS.get(op)


def _definition(func: Callable[..., Any], source: str | None = None) -> ast.FunctionDef:
    try:
        source = source if source is not None else textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        raise ScheduleError(f"hybrid.script '{func.__name__}': its source code cannot be read") from None
    tree = ast.parse(source)
    fdef = next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)
    if fdef is None:
        raise ScheduleError(f"hybrid.script '{func.__name__}': the source holds no function definition")
    return fdef


def _py(e: Any) -> Any:
    """A constant expression as a Python number; anything else as it is."""
    if isinstance(e, Expr) and e.dtype != "bool":
        v = arith.value_of(e)
        if v is not None:
            return v
    return e


def _reads_tensor(e: Any) -> bool:
    found: list[Any] = []
    if isinstance(e, Expr):
        post_order_visit(e, lambda x: found.append(x) if isinstance(x, ElemLoad) else None)
    return bool(found)


def _dtype_of(value: Any) -> str:
    if isinstance(value, Expr):
        return value.dtype
    if isinstance(value, bool):
        return "bool"
    return "float32" if isinstance(value, float) else "int32"


class _Parser:
    def __init__(self, func: Callable[..., Any], fdef: ast.FunctionDef, caller: _Parser | None = None) -> None:
        self.func = func
        self.fdef = fdef
        self.name = func.__name__
        # A script called from another is inlined into its caller's body: its outputs are
        # allocations there.
        self.caller = caller
        self.ib = caller.ib if caller is not None else IRBuilder()
        self.scopes: list[dict[str, Any]] = [{}]
        self.inputs: list[tuple[Tensor, DeclBuffer]] = []
        self.outputs: dict[str, DeclBuffer] = {}
        self.returned: list[DeclBuffer] | None = None
        self.single = True
        closure = inspect.getclosurevars(func)
        self.outer = {**closure.builtins, **closure.globals, **closure.nonlocals}
        self.assignments = _count_assignments(fdef)
        self.references: dict[DeclBuffer, TensorRef] = {}

    # -- errors and names ---------------------------------------------------------------------
    def error(self, node: ast.AST, message: str, kind: type = ScheduleError) -> Exception:
        line = getattr(node, "lineno", 0) + self.func.__code__.co_firstlineno - 1
        return kind(f"hybrid.script '{self.name}', line {line}: {message}")

    def lookup(self, node: ast.Name) -> Any:
        for scope in reversed(self.scopes):
            if node.id in scope:
                return scope[node.id]
        if node.id in (*LOOPS, "output_tensor", "allocate", "len", "min", "max", "abs", "max_num_threads",
                       "sqrt", "log", "exp", "tanh", "sigmoid", "power", "ceil_div", "popcount", *DTYPES):
            return _Builtin(node.id)
        if node.id in self.outer:
            return self.outer[node.id]
        raise self.error(node, f"'{node.id}' is not defined (or is used outside the block where it was "
                               "first assigned)")

    # -- the function -------------------------------------------------------------------------
    def run(self, args: tuple[Any, ...]) -> Any:
        params = [a.arg for a in self.fdef.args.args]
        if len(params) != len(args):
            raise ScheduleTypeError(f"hybrid.script '{self.name}' takes {len(params)} arguments, "
                                    f"{len(args)} given")
        for name, value in zip(params, args):
            self.scopes[0][name] = self.argument(name, value)
        self.block(self.fdef.body)
        if self.returned is None:
            raise ScheduleError(f"hybrid.script '{self.name}': the script must return its output tensors")
        body = extern_body(self.name, self.ib.get(), [b for _, b in self.inputs] + self.returned)
        undecorated = ast.FunctionDef(**{**{f: getattr(self.fdef, f) for f in self.fdef._fields}, "decorator_list": []})
        op = hybrid_op(self.name, self.inputs, self.returned, body, ast.unparse(ast.fix_missing_locations(undecorated)))
        outs = [op.output(k) for k in range(op.num_outputs)]
        return outs[0] if self.single else outs

    def argument(self, name: str, value: Any) -> Any:
        if isinstance(value, Tensor):
            decl = decl_buffer(value.shape, value.dtype, name)
            self.inputs.append((value, decl))
            return TensorRef(decl, self.ib.buffer_ptr(decl))
        if isinstance(value, (list, tuple)):
            return [self.argument(f"{name}{k}", v) if isinstance(v, Tensor) else v for k, v in enumerate(value)]
        if isinstance(value, (int, float, str, Expr)):
            return value
        raise ScheduleTypeError(f"hybrid.script '{self.name}': argument '{name}' is a {type(value).__name__}; "
                                "pass tensors, numbers, expressions or lists of them")

    # -- statements ---------------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt]) -> None:
        for s in stmts:
            if self.returned is not None:
                raise self.error(s, "statements after return")
            getattr(self, "stmt_" + type(s).__name__, self.unsupported)(s)

    def unsupported(self, s: ast.stmt) -> None:
        raise self.error(s, f"'{type(s).__name__}' statements are not supported in a hybrid script")

    def scoped(self, stmts: list[ast.stmt], bind: dict[str, Any] | None = None) -> None:
        self.scopes.append(dict(bind or {}))
        try:
            self.block(stmts)
        finally:
            self.scopes.pop()

    def stmt_Pass(self, s: ast.Pass) -> None:
        pass

    def stmt_Expr(self, s: ast.Expr) -> None:
        if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
            return  # a docstring
        value = self.expr(s.value)
        if isinstance(value, Expr):
            self.ib.emit(value)

    def stmt_Assert(self, s: ast.Assert) -> None:
        cond = self.expr(s.test)
        if not isinstance(cond, Expr):
            if not cond:
                raise self.error(s, "assertion failed while parsing")
            return
        message = self.expr(s.msg) if s.msg is not None else "assertion failed"
        line = s.lineno + self.func.__code__.co_firstlineno - 1
        # known only when the operation runs: checked then, as TVM's assert statement is
        self.ib.emit(Check(self.condition(s.test, cond), f"hybrid.script '{self.name}', line {line}: {message}"))

    def stmt_Return(self, s: ast.Return) -> None:
        values = s.value.elts if isinstance(s.value, ast.Tuple) else [s.value] if s.value else []
        self.single = not isinstance(s.value, ast.Tuple)
        out = []
        for v in values:
            ref = self.expr(v) if v is not None else None
            if not isinstance(ref, TensorRef) or ref.buffer not in self.outputs.values():
                raise self.error(s, "a hybrid script returns the tensors it made with output_tensor")
            out.append(ref.buffer)
        if len(self.scopes) != 1:
            raise self.error(s, "return belongs at the end of the script, outside loops and conditions")
        self.returned = out

    def stmt_Assign(self, s: ast.Assign) -> None:
        if len(s.targets) != 1:
            raise self.error(s, "chained assignments are not supported")
        target = s.targets[0]
        if isinstance(target, ast.Subscript):
            self.store(target, self.expr(s.value))
            return
        if not isinstance(target, ast.Name):
            raise self.error(s, "assign to a name or to a tensor element")
        if isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Name) and \
                s.value.func.id in ("output_tensor", "allocate") and not self.shadowed(s.value.func.id):
            self.scopes[-1][target.id] = self.tensor(s.value, target.id)
            return
        value = self.expr(s.value)
        self.assign(s, target.id, value)

    def shadowed(self, name: str) -> bool:
        return any(name in scope for scope in self.scopes)

    def assign(self, node: ast.AST, name: str, value: Any) -> None:
        current = next((scope[name] for scope in reversed(self.scopes) if name in scope), None)
        if isinstance(current, _Local):
            self.set_local(node, current, value)
            return
        if current is not None:
            raise self.error(node, f"'{name}' cannot be reassigned here: it is a loop variable, a tensor or "
                                   "an argument")
        if isinstance(value, (TensorRef, list, tuple, str)) or (
                self.assignments.get(name, 0) <= 1 and not _reads_tensor(value)):
            self.scopes[-1][name] = value  # immutable: the value itself
            return
        if not isinstance(value, (Expr, int, float, bool)):
            raise self.error(node, f"'{name}' is assigned a {type(value).__name__}")
        local = _Local(self.ib.allocate(_dtype_of(value), (1,), name, "local"))
        self.scopes[-1][name] = local
        self.set_local(node, local, value)

    def set_local(self, node: ast.AST, local: _Local, value: Any) -> None:
        self.put(node, local.access, 0, value)

    def put(self, node: ast.AST, access: BufferVar, index: Any, value: Any) -> None:
        if isinstance(value, Expr) and value.dtype != access.dtype:
            value = arith.cast(access.dtype, value)
        try:
            access[index] = value
        except (TypeError, ValueError) as err:
            raise self.error(node, str(err), ScheduleTypeError) from None

    def stmt_AugAssign(self, s: ast.AugAssign) -> None:
        op = _BINARY.get(type(s.op))
        if op is None:
            raise self.error(s, f"the operator {type(s.op).__name__} is not supported")
        if isinstance(s.target, ast.Name):
            current = self.lookup(s.target)
            if not isinstance(current, _Local):
                raise self.error(s, f"'{s.target.id}' cannot be updated: it is not a variable of the script")
            self.set_local(s, current, self.apply(s, op, current.access[0], self.expr(s.value)))
            return
        if not isinstance(s.target, ast.Subscript):
            raise self.error(s, "update a name or a tensor element")
        old = self.expr(s.target)
        self.store(s.target, self.apply(s, op, old, self.expr(s.value)))

    def store(self, target: ast.Subscript, value: Any) -> None:
        base = self.expr(target.value)
        index = self.expr(target.slice)
        if not isinstance(base, TensorRef):
            raise self.error(target, "only tensor elements can be assigned")
        self.put(target, base.access, tuple(index) if isinstance(index, (tuple, list)) else index, value)

    def tensor(self, call: ast.Call, name: str) -> TensorRef:
        kind = call.func.id  # type: ignore[attr-defined]
        args = [self.expr(a) for a in call.args]
        kwargs = {k.arg: self.expr(k.value) for k in call.keywords}
        shape = kwargs.pop("shape", args[0] if args else None)
        dtype = kwargs.pop("dtype", args[1] if len(args) > 1 else "float32")
        scope = kwargs.pop("scope", args[2] if len(args) > 2 else "global")
        if shape is None or kwargs:
            raise self.error(call, f"{kind}(shape, dtype, scope) takes a shape, a dtype and (allocate) a scope")
        dims = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        if kind == "output_tensor" and self.caller is None:
            try:
                decl = decl_buffer(dims, dtype, self.name)
            except TypeError as err:
                raise self.error(call, str(err), ScheduleTypeError) from None
            self.outputs[name] = decl
            return TensorRef(decl, self.ib.buffer_ptr(decl))
        try:
            access = self.ib.allocate(dtype, dims, name, scope)
        except (TypeError, ValueError) as err:
            raise self.error(call, str(err), ScheduleTypeError) from None
        if kind == "output_tensor":  # of a script called from another
            self.outputs[name] = access.buffer
            self.references[access.buffer] = TensorRef(access.buffer, access)
        return TensorRef(access.buffer, access)

    def stmt_If(self, s: ast.If) -> None:
        cond = self.expr(s.test)
        if not isinstance(cond, Expr):  # known while parsing: only the branch taken
            self.scoped(s.body if cond else s.orelse)
            return
        with self.ib.if_scope(self.condition(s.test, cond)):
            self.scoped(s.body)
        if s.orelse:
            with self.ib.else_scope():
                self.scoped(s.orelse)

    def stmt_While(self, s: ast.While) -> None:
        if s.orelse:
            raise self.error(s, "while ... else is not supported")
        cond = self.expr(s.test)
        with self.ib.while_loop(self.condition(s.test, cond)):
            self.scoped(s.body)

    def condition(self, node: ast.AST, cond: Any) -> Expr:
        c = arith.convert(cond)
        if c.dtype != "bool":
            raise self.error(node, f"a condition must be a comparison, not a {c.dtype} value", ScheduleTypeError)
        return c

    def stmt_For(self, s: ast.For) -> None:
        if s.orelse or not isinstance(s.target, ast.Name):
            raise self.error(s, "a loop is 'for <name> in <kind>(...)' without else")
        it = s.iter
        kind = it.func.id if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) else None
        if kind not in LOOPS or self.shadowed(kind):
            raise self.error(s, f"loops run over {', '.join(LOOPS)}")
        args = [self.expr(a) for a in it.args]  # type: ignore[union-attr]
        name = s.target.id
        if kind == "bind":
            if len(args) != 2 or not isinstance(args[0], str):
                raise self.error(s, "bind(thread_tag, extent), such as bind('threadIdx.x', 64)")
            axis = thread_axis(args[0])
            with self.ib.new_scope():
                self.ib.scope_attr(axis, "thread_extent", args[1])
                self.scoped(s.body, {name: axis.var})
            return
        if not 1 <= len(args) <= 2:
            raise self.error(s, f"{kind}(extent) or {kind}(begin, end)")
        begin, end = (0, args[0]) if len(args) == 1 else args
        if kind == "const_range":
            lo, hi = _py(begin), _py(end)
            if isinstance(lo, Expr) or isinstance(hi, Expr):
                raise self.error(s, "const_range needs bounds known while parsing")
            for k in range(int(lo), int(hi)):
                self.scoped(s.body, {name: k})
            return
        try:
            loop = self.ib.for_range(begin, end, name=name, kind=_LOOP_KINDS[kind])
        except (TypeError, ValueError) as err:
            raise self.error(s, str(err), ScheduleTypeError) from None
        with loop as var:
            self.scoped(s.body, {name: var})

    # -- expressions: driven on an explicit stack, so deep expressions parse --------------------
    def expr(self, node: ast.expr) -> Any:
        return drive(self.visit(node), self.visit)

    def visit(self, node: ast.AST) -> Generator[Any, Any, Any]:
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.error(node, f"'{type(node).__name__}' expressions are not supported in a hybrid script")
        return method(node)

    def apply(self, node: ast.AST, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except ScheduleError as err:  # a ScheduleTypeError stays one
            raise self.error(node, str(err), type(err)) from None
        except (TypeError, ValueError, ZeroDivisionError) as err:
            raise self.error(node, str(err), ScheduleTypeError) from None

    def expr_Constant(self, node: ast.Constant) -> Generator[Any, Any, Any]:
        return node.value
        yield

    def expr_Name(self, node: ast.Name) -> Generator[Any, Any, Any]:
        value = self.lookup(node)
        return value.access[0] if isinstance(value, _Local) else value
        yield

    def expr_Tuple(self, node: ast.Tuple) -> Generator[Any, Any, Any]:
        out = []
        for e in node.elts:
            out.append((yield e))
        return tuple(out)

    expr_List = expr_Tuple

    def expr_BinOp(self, node: ast.BinOp) -> Generator[Any, Any, Any]:
        a = yield node.left
        b = yield node.right
        op = _BINARY.get(type(node.op))
        if op is None:
            raise self.error(node, f"the operator {type(node.op).__name__} is not supported")
        return self.apply(node, op, a, b)

    def expr_UnaryOp(self, node: ast.UnaryOp) -> Generator[Any, Any, Any]:
        a = yield node.operand
        if isinstance(node.op, ast.USub):
            return self.apply(node, operator.neg, a)
        if isinstance(node.op, ast.UAdd):
            return a
        if isinstance(node.op, ast.Not):
            return self.apply(node, arith.logical_not, a) if isinstance(a, Expr) else not a
        return self.apply(node, operator.invert, a)

    def expr_BoolOp(self, node: ast.BoolOp) -> Generator[Any, Any, Any]:
        combine = arith.logical_and if isinstance(node.op, ast.And) else arith.logical_or
        result = yield node.values[0]
        for v in node.values[1:]:
            b = yield v
            if isinstance(result, Expr) or isinstance(b, Expr):
                result = self.apply(node, combine, result, b)
            else:
                result = (result and b) if isinstance(node.op, ast.And) else (result or b)
        return result

    def expr_Compare(self, node: ast.Compare) -> Generator[Any, Any, Any]:
        left = yield node.left
        result: Any = True
        for op, right_node in zip(node.ops, node.comparators):
            right = yield right_node
            fn = _COMPARE.get(type(op))
            if fn is None:
                raise self.error(node, f"the comparison {type(op).__name__} is not supported")
            term = self.apply(node, fn, left, right)
            result = term if result is True else self.apply(node, arith.logical_and, result, term)
            left = right
        return result

    def expr_IfExp(self, node: ast.IfExp) -> Generator[Any, Any, Any]:
        cond = yield node.test
        a = yield node.body
        b = yield node.orelse
        if not isinstance(cond, Expr):
            return a if cond else b
        return self.apply(node, arith.select, cond, a, b)

    def expr_Attribute(self, node: ast.Attribute) -> Generator[Any, Any, Any]:
        base = yield node.value
        if isinstance(base, TensorRef) and node.attr in ("shape", "dtype"):
            return getattr(base, node.attr)
        if isinstance(base, Tensor) and node.attr in ("shape", "dtype"):
            return getattr(base, node.attr)
        raise self.error(node, f"'.{node.attr}' is not supported here (tensors have .shape and .dtype)")

    def expr_Subscript(self, node: ast.Subscript) -> Generator[Any, Any, Any]:
        base = yield node.value
        index = yield node.slice
        if isinstance(base, TensorRef):
            idx = tuple(index) if isinstance(index, (tuple, list)) else index
            if isinstance(idx, tuple) and len(idx) < len(base.buffer.shape):
                raise self.error(node, f"tensor '{base.buffer.name}' has {len(base.buffer.shape)} dimensions; "
                                       "index every one")
            return self.apply(node, base.access.__getitem__, idx)
        if isinstance(base, (list, tuple)):
            for i in index if isinstance(index, tuple) else (index,):
                i = _py(i)
                if isinstance(i, Expr):
                    raise self.error(node, "a list is indexed with values known while parsing (const_range)")
                base = self.apply(node, operator.getitem, base, int(i))
            return base
        raise self.error(node, f"a {type(base).__name__} cannot be indexed")

    def expr_Call(self, node: ast.Call) -> Generator[Any, Any, Any]:
        fn = yield node.func
        args = []
        for a in node.args:
            args.append((yield a))
        if node.keywords:
            raise self.error(node, "keyword arguments are only taken by output_tensor and allocate")
        if getattr(fn, "is_hybrid_script", False):
            return self.inline(node, fn, args)
        if not isinstance(fn, _Builtin):
            raise self.error(node, "only the hybrid script's own functions and other hybrid scripts can be called")
        return self.apply(node, self.builtin(node, fn.name), *args)

    def inline(self, node: ast.AST, script: Any, args: list[Any]) -> Any:
        """Another script's body, here, on *args*; its outputs (allocations here) as tensors."""
        callee = _Parser(script.func, _definition(script.func), caller=self)
        params = [a.arg for a in callee.fdef.args.args]
        if len(params) != len(args):
            raise self.error(node, f"'{callee.name}' takes {len(params)} arguments, {len(args)} given")
        callee.scopes[0].update(zip(params, args))
        callee.block(callee.fdef.body)
        if callee.returned is None:
            raise self.error(node, f"'{callee.name}' returns no tensors")
        refs = [callee.references[b] for b in callee.returned]
        return refs[0] if callee.single else refs

    def builtin(self, node: ast.AST, name: str) -> Callable[..., Any]:
        if name == "len":
            return lambda x: len(x) if isinstance(x, (list, tuple)) else _py(x.shape[0])
        if name in ("min", "max"):
            pick = arith.min_expr if name == "min" else arith.max_expr

            def both(a: Any, b: Any) -> Any:
                if isinstance(a, Expr) or isinstance(b, Expr):
                    return pick(a, b)
                return min(a, b) if name == "min" else max(a, b)
            return both
        if name == "abs":
            return lambda x: intrinsics.abs(x) if isinstance(x, Expr) else abs(x)
        if name in ("sqrt", "log", "exp", "tanh", "sigmoid"):
            unary = getattr(intrinsics, name)
            return lambda x: unary(arith.convert(x) if isinstance(x, Expr) else arith.const(float(x)))
        if name == "power":
            return intrinsics.power
        if name == "popcount":
            return lambda x: Call(x.dtype, "popcount", (x,)) if isinstance(x, Expr) else bin(x).count("1")
        if name == "ceil_div":
            return lambda a, b: arith.floordiv(arith.add(a, b - 1), b) if isinstance(a, Expr) else -(-a // b)
        if name == "max_num_threads":
            return lambda allow_none=True: 1024
        if name in DTYPES:
            return lambda x: arith.cast(name, x) if isinstance(x, Expr) else (
                float(x) if is_float(name) else int(x))
        raise self.error(node, f"'{name}' cannot be called here")


def _count_assignments(fdef: ast.FunctionDef) -> dict[str, int]:
    counts: dict[str, int] = {}
    for node in ast.walk(fdef):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign):
            targets = [node.target, node.target]  # an update makes any variable mutable
        for t in targets:
            if isinstance(t, ast.Name):
                counts[t.id] = counts.get(t.id, 0) + 1
    # An assignment inside a loop runs many times.
    for loop in (n for n in ast.walk(fdef) if isinstance(n, (ast.For, ast.While))):
        for node in ast.walk(loop):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        counts[t.id] = max(counts.get(t.id, 0), 1)
    return counts

"""TVMScript functions and modules read into lowered functions that build and run.

``@T.prim_func def main(A: T.Buffer((16,), "float32"), ...)`` becomes a lowered function
whose arguments are tensors of those shapes (a ``T.handle`` parameter takes the shape of its
``T.match_buffer``); ``@I.ir_module class Module`` becomes a module of its functions. The text
is read with Python's ``ast``; nothing in it runs.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import re
import textwrap
from typing import Any

from bound.arith.simplify import simplify
from lower.ir.script.parse_expr import Scope, ScriptError, SourceText, View, _dtype
from lower.ir.script.parse_stmt import StmtReader
from lower.ir.stmt import NO_OP, Buffer
from lower.lower import LoweredFunc
from lower.module import IRModule
from schedule.ir import arith
from schedule.ir.expr import Expr, StringImm, Var
from schedule.ir.functor import free_vars, structural_equal
from schedule.operation.placeholder import placeholder

_BUILTINS = {"range": range, "True": True, "False": False, "None": None}


class _FunctionReader(StmtReader):
    """A function's parameters and body."""

    def __init__(self, scope: Scope, source: SourceText) -> None:
        super().__init__(scope, source)
        self.handles: dict[str, Any] = {}
        #: The typed pointer parameters (``p: T.handle("float32")``), as the variables the body uses.
        self.pointers: dict[str, Var] = {}  # a handle parameter's name: its tensor, once matched
        self.buffers: dict[Any, Buffer] = {}
        self.attrs: dict[str, Any] = {}

    def function(self, node: ast.FunctionDef) -> LoweredFunc:
        if node.args.vararg or node.args.kwarg or node.args.kwonlyargs:
            raise self.error("a prim_func takes plain parameters", node)
        params: list[tuple[str, Any]] = []
        for arg in node.args.args:
            params.append((arg.arg, self.parameter(arg)))
        body_nodes = list(node.body)
        for stmt in body_nodes:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
                    self(stmt.value.func) == ("T", "func_attr"):
                attrs = self(stmt.value.args[0])
                if not isinstance(attrs, dict):
                    raise self.error("T.func_attr takes a dictionary", stmt)
                self.attrs.update(attrs)
        body = self.block(body_nodes)
        args: list[Any] = []
        for name, kind in params:
            if kind == "handle":  # a handle no T.match_buffer binds stays a handle
                matched = self.handles.get(name)
                pointer = self.pointers.get(name)
                args.append(matched if matched is not None else pointer if pointer is not None else Var(name, "handle"))
            else:
                args.append(kind)
        func = LoweredFunc(args, self.buffers, body, exact=False)
        #: The names of the handles tensors were matched from (``a`` of ``A = T.match_buffer(a, ...)``).
        func.handle_names = {t: name for name, t in self.handles.items()}  # type: ignore[attr-defined]
        symbol = self.attrs.get("global_symbol")
        func.name = symbol.value if isinstance(symbol, StringImm) else symbol if isinstance(symbol, str) else node.name
        func.attrs = dict(self.attrs)  # type: ignore[attr-defined]
        return func

    def parameter(self, arg: ast.arg) -> Any:
        """What a parameter is: a tensor (a ``T.Buffer`` annotation), ``"handle"``, or a scalar."""
        note = arg.annotation
        if note is None:
            raise self.error(f"the parameter {arg.arg!r} needs a type: T.Buffer(...), T.handle or T.int32", arg)
        if isinstance(note, (ast.Call, ast.Subscript)):
            head = self(note.func if isinstance(note, ast.Call) else note.value)
            if head == ("T", "Buffer"):
                call = note if isinstance(note, ast.Call) else _subscript_call(note)
                return self.bind_tensor(arg.arg, call)
            if head == ("T", "handle"):  # a typed pointer, T.handle("float32"): a variable buffers point into
                var = Var(arg.arg, "handle")
                self.pointers[arg.arg] = var
                self.scope.bind(arg.arg, var)
                return "handle"
        head = self(note)
        if head == ("T", "handle"):  # matched to a buffer below, or a pointer the body uses
            self.handles[arg.arg] = None
            self.pointers[arg.arg] = Var(arg.arg, "handle")
            self.scope.bind(arg.arg, self.pointers[arg.arg])
            return "handle"
        if isinstance(head, tuple) and head[0] == "T":
            var = Var(arg.arg, _dtype(head[1]))
            self.scope.bind(arg.arg, var)
            return var
        raise self.error(f"the parameter {arg.arg!r} has a type TVMScript does not read", arg)

    def bind_tensor(self, name: str, call: ast.Call, handle: str | None = None) -> Any:
        shape, dtype, kwargs = self.buffer_args(call)
        unread = set(kwargs) - {"buffer_type", "data", "offset_factor", "align", "strides", "elem_offset"}
        if unread:
            raise self.error(f"an argument buffer with {', '.join(sorted(unread))} is not read (only shape, dtype, "
                             "strides and elem_offset)", call)
        self.bind_compact(name, shape, kwargs, call)
        tensor = placeholder(shape, dtype, name=_stem(name))
        flat = Buffer(tensor.op.name, dtype, tensor.shape, "global", tensor)
        self.buffers[tensor] = flat
        self.scope.bind(name, View(flat, tuple(tensor.shape)))
        return tensor

    def bind_compact(self, name: str, shape: tuple, kwargs: dict, call: ast.Call) -> None:
        """An argument is a compact array: its buffer's ``strides`` are the row-major ones of
        its shape and its ``elem_offset`` 0. A variable the script declared for one (``stride =
        T.int32()``) is bound to that value, as a call binds it from the array it is given."""
        compact: list[Expr] = []
        step: Expr = arith.const(1)
        for extent in reversed(shape):
            compact.insert(0, step)
            step = arith.mul(step, extent)
        strides = kwargs.get("strides") or ()
        if not isinstance(strides, (list, tuple)) or (strides and len(strides) != len(shape)):
            raise self.error(f"argument buffer {name!r}: strides are a list of one per dimension", call)
        given = [(f"stride {k}", s, c) for k, (s, c) in enumerate(zip(strides, compact))]
        if kwargs.get("elem_offset") is not None:
            given.append(("elem_offset", kwargs["elem_offset"], arith.const(0)))
        for what, value, value_here in given:
            value = arith.convert(value)
            if structural_equal(simplify(value), simplify(value_here)):
                continue
            if isinstance(value, Var) and self.scope.lookup(value.name) is value \
                    and value not in free_vars([d for d in shape if isinstance(d, Expr)]):
                self.scope.bind(value.name, value_here)
                continue
            raise self.error(f"argument buffer {name!r}: its {what} is {value}, where a compact array has "
                             f"{value_here}; arguments here are compact arrays (declare the layout with "
                             "te.extern's in_buffers to view part of one)", call)

    def stmt_Assign(self, node: ast.Assign) -> Any:  # noqa: N802
        value = node.value
        if isinstance(value, ast.Call) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and self(value.func) == ("T", "match_buffer"):
            handle = self(value.args[0]) if value.args else None
            param = next((n for n, v in self.pointers.items() if v is handle and n in self.handles), None)
            if param is None:
                raise self.error("T.match_buffer matches a T.handle parameter: T.match_buffer(a, (16,))", node)
            rest = ast.Call(func=value.func, args=value.args[1:], keywords=value.keywords)
            ast.copy_location(rest, value)
            matched = self.handles.get(param)
            if matched is not None:  # a second view of the same argument's data
                shape, _, _ = self.buffer_args(rest)
                self.scope.bind(node.targets[0].id, View(self.buffers[matched], shape))
                return NO_OP
            self.handles[param] = self.bind_tensor(node.targets[0].id, rest, param)
            return NO_OP
        return super().stmt_Assign(node)


def _stem(name: str) -> str:
    """A script's name without the ``_1`` the printer adds to tell it from a namesake."""
    return re.sub(r"_[0-9]+$", "", name) or name


def _subscript_call(node: ast.Subscript) -> ast.Call:
    """``T.Buffer[(16,), "float32"]`` (TVM v0.10's form) as the call it stands for."""
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    call = ast.Call(func=node.value, args=list(items), keywords=[])
    return ast.copy_location(call, node)


def _is_decorated(node: ast.AST, names: tuple[str, ...]) -> bool:
    for d in getattr(node, "decorator_list", []):
        target = d.func if isinstance(d, ast.Call) else d
        if isinstance(target, ast.Attribute) and target.attr in names:
            return True
        if isinstance(target, ast.Name) and target.id in names:
            return True
    return False


def read_function(node: ast.FunctionDef, outer: dict[str, Any], source: SourceText) -> LoweredFunc:
    reader = _FunctionReader(Scope({**_BUILTINS, **outer}), source)
    return reader.function(node)


def read_module(node: ast.ClassDef, outer: dict[str, Any], source: SourceText) -> IRModule:
    functions = {}
    for item in node.body:
        if isinstance(item, ast.FunctionDef):
            if not _is_decorated(item, ("prim_func",)):
                raise ScriptError(f"the method {item.name!r} of an ir_module is a @T.prim_func", item, source)
            functions[item.name] = read_function(item, outer, source)
        elif not (isinstance(item, ast.Expr) and isinstance(item.value, ast.Constant)):
            raise ScriptError(f"an ir_module holds @T.prim_func functions, not {type(item).__name__}", item, source)
    return IRModule(functions)


def from_source(text: str, outer: dict[str, Any] | None = None, filename: str = "<tvmscript>",
                line_offset: int = 0) -> Any:
    """The first ``@T.prim_func`` function or ``@I.ir_module`` class of *text*, read."""
    if not isinstance(text, str):
        raise TypeError(f"from_source: TVMScript text (a str), got {type(text).__name__}")
    source = SourceText(textwrap.dedent(text), filename, line_offset)
    try:
        tree = ast.parse(source.text, filename)
    except SyntaxError as exc:
        if "too many nested parentheses" in str(exc.msg):
            raise ScriptError("the text nests parentheses deeper than Python's parser reads (200); split the "
                              "expression with lets", None, source) from None
        raise ScriptError(f"not Python: {exc.msg}", exc, source) from None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and _is_decorated(node, ("prim_func",)):
            return read_function(node, outer or {}, source)
        if isinstance(node, ast.ClassDef) and _is_decorated(node, ("ir_module",)):
            return read_module(node, outer or {}, source)
    for node in tree.body:  # a bare function or class: the printer's text without decorators
        if isinstance(node, ast.FunctionDef):
            return read_function(node, outer or {}, source)
    raise ScriptError("no @T.prim_func function or @I.ir_module class in the text", None, source)


def python_values(fn: Any) -> dict[str, Any]:
    """The names a decorated function sees: its globals, builtins, then its closure."""
    values = dict(vars(builtins))
    values.update(getattr(fn, "__globals__", {}))
    code = getattr(fn, "__code__", None)
    if code is not None and fn.__closure__:
        for name, cell in zip(code.co_freevars, fn.__closure__):
            try:
                values[name] = cell.cell_contents
            except ValueError:
                pass
    return values


def read_decorated(fn: Any) -> LoweredFunc:
    """``@T.prim_func``: the decorated function's source, read."""
    try:
        lines, first = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or "<tvmscript>"
    except (OSError, TypeError):
        raise ValueError(f"T.prim_func: the source of {getattr(fn, '__name__', fn)!r} is not available (defined "
                         "in an interactive session or exec?); read the text with tvm.script.from_source(text)") \
            from None
    source = SourceText(textwrap.dedent("".join(lines)), filename, first - 1)
    tree = ast.parse(source.text, filename)
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise ScriptError("T.prim_func decorates a function", node, source)
    outer = python_values(fn)
    outer.pop(node.name, None)
    return read_function(node, outer, source)


__all__ = ["ScriptError", "from_source", "read_decorated", "read_function", "read_module"]

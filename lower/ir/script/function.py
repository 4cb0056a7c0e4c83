"""Functions and modules as TVMScript (TVM v0.9-v0.14's printer): ``@T.prim_func`` with its
parameters' buffers, ``T.func_attr`` and the body, inside ``@I.ir_module class Module:`` for
a module.

An argument tensor of constant shape is a parameter ``A: T.Buffer((16, 16), "float32")``;
one of symbolic shape is a handle matched in the body (``A_1 = T.match_buffer(A, (n, 16),
buffer_type="auto")``), as TVM v0.13 binds te's arguments. The flat buffers the body reads
are views of the arguments' data (``A_1 = T.Buffer((256,), data=A.data)``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lower.ir.script.doc import Block, Doc, Line, render
from lower.ir.script.expr import ScriptNames, str_literal, type_text
from lower.ir.script.stmt import Frame, StmtScript, literal_text
from lower.ir.script.uses import FUNCTION, common_prefixes
from lower.ir.stmt import SeqStmt, Stmt, seq_items
from lower.ir.stmt_functor import ir_transform
from schedule.base.recursion import run
from schedule.ir.expr import IntImm, Var
from schedule.operation.tensor import Tensor

TIR_HEADER = "# from tvm.script import tir as T"
IR_HEADER = "# from tvm.script import ir as I"


def function_docs(func: Any, name: str = "main", decl_buffer: bool = False) -> list[Doc]:
    """The ``@T.prim_func`` lines of a lowered function (``tvm.lower``'s); *decl_buffer*
    writes buffer views as ``T.decl_buffer``, the form TVM 0.25+ builds."""
    names = ScriptNames()
    body = flat_sequences(func.body)
    printer = StmtScript(names, common_prefixes(body), decl_buffer)
    frame = Frame(FUNCTION)
    printer.frames.append(frame)
    params: list[str] = []
    matched: list[tuple[Tensor, str]] = []
    for arg in _arguments(func):
        if isinstance(arg, Var):
            params.append(f"{names(arg, arg.name)}: {type_text(arg.dtype)}")
            continue
        shape = [printer.text(d) for d in arg.shape] if _constant_shape(arg) else None
        if shape is not None:
            param = names(("param", id(arg)), arg.op.name)
            params.append(f"{param}: T.Buffer({_tuple(shape)}, {str_literal(arg.dtype)})")
            printer.data[id(func.buffers[arg])] = (f"{param}.data", [])
        else:
            handle = names(("handle", id(arg)), getattr(func, "handle_names", {}).get(arg, arg.op.name))
            params.append(f"{handle}: T.handle")
            matched.append((arg, handle))
    attrs = _attributes(func)
    if attrs:
        frame.stmts.append(Line(f"T.func_attr({_attrs_text(attrs)})"))
    for tensor, handle in matched:
        param = names(("param", id(tensor)), tensor.op.name)
        shape = [printer.text(d) for d in tensor.shape]  # a first use of a shape variable declares it
        extra = ['buffer_type="auto"'] if any(isinstance(d, Var) for d in tensor.shape) else []
        dtype = [] if tensor.dtype == "float32" else [str_literal(tensor.dtype)]
        frame.stmts.append(Line(f"{param} = T.match_buffer({', '.join([handle, _tuple(shape), *dtype, *extra])})"))
        printer.data[id(func.buffers[tensor])] = (f"{param}.data", extra)
    run(printer.body(body, frame), printer.dispatch)
    return [Line("@T.prim_func"), Block(f"def {name}({', '.join(params)}):", frame.stmts)]


def function_script(func: Any, name: str = "main", decl_buffer: bool = False) -> str:
    """*func* alone as TVMScript (``func.script()``); see :func:`function_docs`."""
    return "\n".join([TIR_HEADER, "", *render(function_docs(func, name, decl_buffer))])


def module_script(functions: Mapping[str, Any]) -> str:
    """The named functions as an ``@I.ir_module`` (``mod.script()``, ``print(mod)``)."""
    body: list[Doc] = []
    for k, (name, func) in enumerate(functions.items()):
        if k:
            body.append(Line(""))
        body.extend(function_docs(func, name))
    lines = render([Line("@I.ir_module"), Block("class Module:", body)])
    return "\n".join([IR_HEADER, TIR_HEADER, "", *(line.rstrip() for line in lines)])


def flat_sequences(body: Stmt) -> Stmt:
    """*body* with each sequence inside a sequence spliced into it, as TVM builds them (and
    as the text reads back)."""
    def splice(s: Stmt) -> Stmt | None:
        if not any(isinstance(x, SeqStmt) for x in s.seq):  # type: ignore[attr-defined]
            return None
        return SeqStmt(tuple(seq_items(s)))
    return ir_transform(body, None, splice, ["tir.SeqStmt"])


def _arguments(func: Any) -> list[Any]:
    if hasattr(func, "tensors") and hasattr(func, "buffers"):
        return list(func.args)
    raise TypeError(f"TVMScript: a lowered function (tvm.lower's result), got {type(func).__name__}")


def _constant_shape(t: Tensor) -> bool:
    return all(isinstance(d, IntImm) for d in t.shape)


def _tuple(items: list[str]) -> str:
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _attributes(func: Any) -> dict[str, Any]:
    """A function's attributes: those TVM's ``tvm.lower`` gives, unless it has its own (read
    from a script's ``T.func_attr``)."""
    own = getattr(func, "attrs", None)
    if own is not None:
        return dict(own)
    return {"from_legacy_te_schedule": True, "global_symbol": getattr(func, "name", "main"), "tir.noalias": True}


def _attrs_text(attrs: Mapping[str, Any]) -> str:
    items = ", ".join(f"{str_literal(k)}: {literal_text(attrs[k])}" for k in sorted(attrs))
    return f"{{{items}}}"

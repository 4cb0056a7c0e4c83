"""Structural equality of expressions, statements and functions as TVM defines it
(``tvm.ir.structural_equal``), and the first place two trees differ, with its path.

Two trees are equal when they have the same shape and the same constants, whatever their
variables and buffers are named: a variable or buffer defined inside the trees (a loop's
variable, a ``let``, an allocation, a function's parameters and argument buffers, a thread
index) stands for its counterpart from its definition on. A free variable equals only itself,
unless ``map_free_vars`` pairs the free variables in the order they are met. The pairing is
one to one both ways. A flat buffer compares by its element type, size and scope. The
run-time checks lowering attaches to loads and stores are no part of TVM's IR and are not
compared.

Paths are TVM's: ``<root>.body.seq[1].value.a``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from lower.ir.stmt import Allocate, AttrStmt, Buffer, BufferView, For, LetStmt, SeqStmt, seq_items
from schedule.ir.expr import FloatImm, Let, Var
from schedule.ir.functor import structural_equal as _expr_equal
from schedule.ir.itervar import IterVar
from schedule.ir.reduce import CommReducer
from schedule.operation.tensor import Operation, Tensor

#: Fields that are no part of TVM's IR (run-time checks, the tensor a buffer was made for).
_IGNORED = {"checks", "checked", "tensor"}
#: Nodes whose ``name`` is a name, which equality ignores (a call's name is what it calls).
_NAMED = (Buffer, BufferView)


@dataclass(frozen=True)
class Difference:
    """Where two trees first differ: the two paths and the two nodes found there."""

    lhs_path: str
    rhs_path: str
    lhs: Any
    rhs: Any

    def __str__(self) -> str:
        return (f"StructuralEqual check failed, caused by lhs at {self.lhs_path}:\n{_text(self.lhs)}\n"
                f"and rhs at {self.rhs_path}:\n{_text(self.rhs)}")


def _text(node: Any) -> str:
    text = str(node).rstrip("\n")
    return "\n".join("  " + line for line in text.split("\n"))


class _Pairing:
    """Variables and buffers paired so far, both ways."""

    def __init__(self, map_free_vars: bool) -> None:
        self.map_free_vars = map_free_vars
        self.left: dict[int, Any] = {}
        self.right: dict[int, Any] = {}
        #: Whether some variable or buffer is paired with another: only then can a subtree
        #: that both sides share differ (it may use the variable on one side only).
        self.renamed = False

    def define(self, a: Any, b: Any) -> bool:
        """Pair *a* with *b* at a definition; False if either is paired with another."""
        if self.left.get(id(a), b) is not b or self.right.get(id(b), a) is not a:
            return False
        self.left[id(a)], self.right[id(b)] = b, a
        self.renamed = self.renamed or a is not b
        return True

    def use(self, a: Any, b: Any) -> bool:
        """Whether a use of *a* matches a use of *b*: paired together, or both free and the
        same (or, mapping free variables, paired now)."""
        if id(a) in self.left or id(b) in self.right:
            return self.left.get(id(a)) is b and self.right.get(id(b)) is a
        if a is b:
            return True
        return self.map_free_vars and self.define(a, b)


def first_difference(lhs: Any, rhs: Any, map_free_vars: bool = False) -> Difference | None:
    """The first place where *lhs* and *rhs* differ (in TVM's visiting order), or None when
    they are structurally equal."""
    pairing = _Pairing(map_free_vars)
    stack: list[tuple[Any, Any, str, str]] = [(lhs, rhs, "<root>", "<root>")]
    while stack:
        a, b, pa, pb = stack.pop()
        # An allocation's scope attribute (our lowering's, older TVM's) says what the
        # allocation's buffer says already: TVM v0.8+ has none, so it is looked through.
        if isinstance(a, AttrStmt) and _scopes_allocation(a):
            a, pa = a.body, f"{pa}.body"
        if isinstance(b, AttrStmt) and _scopes_allocation(b):
            b, pb = b.body, f"{pb}.body"
        if a is b and not pairing.renamed and not isinstance(a, (Var, Buffer)):
            continue
        pairs = _compare(a, b, pa, pb, pairing)
        if pairs is None:
            return Difference(pa, pb, a, b)
        stack.extend(reversed(pairs))
    return None


def structural_equal(lhs: Any, rhs: Any, map_free_vars: bool = False) -> bool:
    """Whether *lhs* and *rhs* are structurally equal (see the module's docstring)."""
    return first_difference(lhs, rhs, map_free_vars) is None


def _compare(a: Any, b: Any, pa: str, pb: str, pairing: _Pairing) -> list[tuple[Any, Any, str, str]] | None:
    """The pairs of children to compare next if *a* and *b* match at the top, else None."""
    if isinstance(a, Var) or isinstance(b, Var):
        ok = isinstance(a, Var) and isinstance(b, Var) and a.dtype == b.dtype and pairing.use(a, b)
        return [] if ok else None
    if isinstance(a, Buffer) or isinstance(b, Buffer):
        if not (isinstance(a, Buffer) and isinstance(b, Buffer)):
            return None
        if a.pointer is not None and b.pointer is not None and id(a) not in pairing.left:
            # A buffer over a pointer is declared where it is first used (TVM's DeclBuffer):
            # defined there, by where it points.
            if not pairing.define(a, b):
                return None
            pointers = [(a.pointer.exprs, b.pointer.exprs, f"{pa}.data", f"{pb}.data")]
        elif pairing.use(a, b):
            pointers = []
        else:
            return None
        # A flat buffer is its storage: its element type, size and scope (the shape it was
        # realized with is one way of counting the same elements).
        return [(a.dtype, b.dtype, f"{pa}.dtype", f"{pb}.dtype"), (a.size, b.size, f"{pa}.shape", f"{pb}.shape"),
                (a.scope, b.scope, f"{pa}.scope", f"{pb}.scope"), *pointers]
    if type(a) is not type(b):
        return None
    if isinstance(a, (tuple, list)):
        if len(a) != len(b):
            return None
        return [(x, y, f"{pa}[{k}]", f"{pb}[{k}]") for k, (x, y) in enumerate(zip(a, b))]
    if isinstance(a, dict):
        if list(a) != list(b):
            return None
        return [(a[k], b[k], f"{pa}[{k!r}]", f"{pb}[{k!r}]") for k in a]
    if isinstance(a, FloatImm):
        same = a.value == b.value or (a.value != a.value and b.value != b.value)
        return [] if a.dtype == b.dtype and same else None
    if isinstance(a, (bool, int, float, str, enum.Enum)) or a is None:
        return [] if a == b else None
    if isinstance(a, IterVar):  # a thread index or a reduction's axis: defined here
        if a.thread_tag != b.thread_tag or not pairing.define(a.var, b.var):
            return None
        return [(a.dom, b.dom, f"{pa}.dom", f"{pb}.dom")]
    if isinstance(a, CommReducer):  # its own parameters pair inside it
        return [] if _expr_equal(a, b) else None
    if isinstance(a, (Operation, Tensor)):  # the stage a produce marker or a realize names: paired as met
        same = a.value_index == b.value_index if isinstance(a, Tensor) else True
        return [] if same and pairing.define(a.op if isinstance(a, Tensor) else a,
                                             b.op if isinstance(b, Tensor) else b) else None
    if isinstance(a, SeqStmt):  # a sequence inside a sequence is its statements in place, as TVM builds them
        xs, ys = seq_items(a), seq_items(b)
        if len(xs) != len(ys):
            return None
        return [(x, y, f"{pa}.seq[{k}]", f"{pb}.seq[{k}]") for k, (x, y) in enumerate(zip(xs, ys))]
    if _is_function(a):
        return _function(a, b, pa, pb, pairing)
    if isinstance(a, (For, LetStmt, Let)):  # the variable is defined before the rest is compared
        var_a, var_b = (a.loop_var, b.loop_var) if isinstance(a, For) else (a.var, b.var)
        if var_a.dtype != var_b.dtype or not pairing.define(var_a, var_b):
            return None
    elif isinstance(a, Allocate):
        if not pairing.define(a.buffer, b.buffer):
            return None
    elif isinstance(a, AttrStmt) and isinstance(a.node, IterVar) != isinstance(b.node, IterVar):
        return None
    if is_dataclass(a):
        return _fields(a, b, pa, pb)
    # Tensors, operations, reducers and the like: as the expression comparison has them.
    return [] if _expr_equal(a, b) else None


def _scopes_allocation(s: AttrStmt) -> bool:
    return isinstance(s.node, Buffer) and isinstance(s.body, Allocate) and s.body.buffer is s.node


def _fields(a: Any, b: Any, pa: str, pb: str) -> list[tuple[Any, Any, str, str]]:
    names = [f.name for f in fields(a) if f.name not in _IGNORED and f.compare
             and not (f.name == "name" and isinstance(a, _NAMED))]
    return [(getattr(a, n), getattr(b, n), f"{pa}.{n}", f"{pb}.{n}") for n in names]


def _is_function(x: Any) -> bool:
    """A lowered function or a ``PrimFunc``: parameters (and argument buffers) and a body."""
    return hasattr(x, "body") and (hasattr(x, "buffers") or hasattr(x, "buffer_map"))


def _function(a: Any, b: Any, pa: str, pb: str, pairing: _Pairing) -> list[tuple[Any, Any, str, str]] | None:
    """Parameters and argument buffers pair in order; then the bodies."""
    params_a, params_b = list(getattr(a, "params", [])), list(getattr(b, "params", []))
    bufs_a, bufs_b = _argument_buffers(a), _argument_buffers(b)
    if len(params_a) != len(params_b) or len(bufs_a) != len(bufs_b):
        return None
    for x, y in (*zip(params_a, params_b), *zip(bufs_a, bufs_b)):
        if isinstance(x, Var) and (not isinstance(y, Var) or x.dtype != y.dtype):
            return None
        if not pairing.define(x, y):
            return None
    pairs = [(x, y, f"{pa}.buffer_map[{k}]", f"{pb}.buffer_map[{k}]") for k, (x, y) in enumerate(zip(bufs_a, bufs_b))
             if isinstance(x, Buffer)]
    return [*pairs, (a.body, b.body, f"{pa}.body", f"{pb}.body")]


def _argument_buffers(f: Any) -> list[Any]:
    if hasattr(f, "buffers") and hasattr(f, "tensors"):
        return [f.buffers[t] for t in f.tensors]
    return list(getattr(f, "buffer_map", {}).values())

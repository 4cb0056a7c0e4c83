"""HLO text into its structure: a module of computations of instructions, as XLA's parser reads it.

Recursive descent over :func:`~schedule.xla.hlo_lexer.tokenize`'s tokens. Nesting (tuple
shapes, braces in attribute values and literals) is followed with counters and explicit stacks,
so no input can exhaust Python's recursion limit. Attribute values and constant literals are
kept as their source text; what they mean is the op builder's business (``hlo.py``). Every
error is an :class:`HloParseError` with the line and column of the offending token.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from schedule.xla.hlo_lexer import HloParseError, Token, tokenize

#: XLA's element types, and the dtype a tensor of each is built with. Types the DSL lacks
#: (bf16, the f8/f4 floats, s4, complex, token) take the nearest dtype that holds their values
#: or, for complex and token, one of the same size class: indexing does not depend on them.
ELEMENT_TYPES = {
    "pred": "bool", "s1": "int8", "s2": "int8", "s4": "int8", "s8": "int8", "s16": "int16", "s32": "int32",
    "s64": "int64", "u1": "uint8", "u2": "uint8", "u4": "uint8", "u8": "uint8", "u16": "uint16",
    "u32": "uint32", "u64": "uint64", "f16": "float16", "bf16": "float32", "f32": "float32", "f64": "float64",
    "f4e2m1fn": "float32", "f6e2m3fn": "float32", "f6e3m2fn": "float32", "f8e3m4": "float32",
    "f8e4m3": "float32", "f8e4m3fn": "float32", "f8e4m3fnuz": "float32", "f8e4m3b11fnuz": "float32",
    "f8e5m2": "float32", "f8e5m2fnuz": "float32", "f8e8m0fnu": "float32", "c64": "float32",
    "c128": "float64", "token": "int8", "opaque": "int8",
}


@dataclass
class Shape:
    """An array shape (``element_type`` and ``dims``; ``dynamic[k]`` for a ``<=N`` or ``?``
    dimension, whose size is its bound N, or 0 for ``?``) or a tuple (``tuple_shapes``)."""

    dtype: str
    dims: list[int]
    layout: list[int] | None = None
    tuple_shapes: list[Shape] | None = None
    element_type: str = ""
    dynamic: list[bool] = field(default_factory=list)

    @property
    def is_tuple(self) -> bool:
        return self.tuple_shapes is not None

    def leaves(self) -> list[Shape]:
        """The array shapes of a tuple, in order (the shape itself for an array)."""
        if self.tuple_shapes is None:
            return [self]
        return [leaf for s in self.tuple_shapes for leaf in s.leaves()]

    def __str__(self) -> str:
        if self.tuple_shapes is not None:
            return "(" + ", ".join(str(s) for s in self.tuple_shapes) + ")"
        dynamic = self.dynamic or [False] * len(self.dims)
        dims = ",".join(("<=" if d else "") + str(n) for n, d in zip(self.dims, dynamic))
        return f"{self.element_type}[{dims}]"


@dataclass
class Instruction:
    """One instruction; ``shape`` is None where the text leaves it to be inferred."""

    name: str
    shape: Shape | None
    opcode: str
    operands: list[str]
    attrs: dict[str, str]
    line: int
    is_root: bool
    literal: str = ""
    column: int = 0
    operand_positions: list[tuple[int, int]] = field(default_factory=list)
    attr_positions: dict[str, tuple[int, int]] = field(default_factory=dict)


#: the attributes whose value names computations (or writes one in place)
CALLED = ("to_apply", "calls", "condition", "body", "true_computation", "false_computation",
          "branch_computations", "called_computations")


@dataclass
class Computation:
    name: str
    instructions: list[Instruction] = field(default_factory=list)
    is_entry: bool = False
    line: int = 0
    column: int = 0
    attrs: dict[str, str] = field(default_factory=dict)

    @property
    def root(self) -> Instruction:
        roots = [i for i in self.instructions if i.is_root]
        return roots[0] if roots else self.instructions[-1]


@dataclass
class ParsedModule:
    name: str
    attrs: dict[str, str]
    computations: list[Computation]

    @property
    def entry(self) -> Computation:
        entries = [c for c in self.computations if c.is_entry]
        return entries[0] if entries else self.computations[-1]


_OPEN = {"(": ")", "[": "]", "{": "}"}
_STACK_FRAME_SECTIONS = frozenset({"FileNames", "FunctionNames", "FileLocations", "StackFrames"})
#: Operands may be whole instructions written in place; deeper nesting than this is refused.
MAX_NESTED_INSTRUCTIONS = 64
#: Tuple shapes nested deeper than this are refused (so that walking a shape may recurse).
MAX_TUPLE_DEPTH = 64
#: The most elements a shape may have (XLA counts them in a signed 64-bit integer).
MAX_ELEMENTS = 2**63 - 1
_CLOSE = frozenset(_OPEN.values())


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        # Token texts, padded past the end: no word, number or string is spelled like punctuation,
        # so comparing texts alone finds punctuation.
        self.texts = [t.text for t in self.tokens] + ["", "", ""]
        self.at = 0
        self.nested = 0  # instructions written in place, for their names
        self.inline: list[Computation] = []  # computations written in place as attribute values

    # -- tokens ------------------------------------------------------------------------------------

    def peek(self, ahead: int = 0) -> Token:
        return self.tokens[min(self.at + ahead, len(self.tokens) - 1)]

    def take(self) -> Token:
        t = self.tokens[self.at]
        if t.kind != "end":
            self.at += 1
        return t

    def is_punct(self, text: str, ahead: int = 0) -> bool:
        return self.texts[self.at + ahead] == text

    def accept(self, text: str) -> bool:
        if self.texts[self.at] == text:
            self.at += 1
            return True
        return False

    def expect(self, text: str, context: str) -> Token:
        if not self.is_punct(text):
            self.fail(f"expected '{text}' {context}, found {_describe(self.peek())}")
        return self.take()

    def fail(self, message: str, token: Token | None = None) -> None:
        t = token or self.peek()
        raise HloParseError(message, t.line, t.column)

    def name(self, what: str) -> Token:
        t = self.peek()
        if t.kind not in ("word", "number") or t.text in ("%", ""):
            self.fail(f"expected {what}, found {_describe(t)}")
        return self.take()

    # -- module --------------------------------------------------------------------------------------

    def module(self) -> ParsedModule:
        name, attrs = "", {}
        if self.peek().kind == "word" and self.peek().text == "HloModule":
            self.take()
            name = _bare(self.name("a module name after 'HloModule'").text)
            self.accept(":")  # older dumps end the name with a colon
            while self.accept(","):
                key = self.name("a module attribute").text
                self.expect("=", f"after module attribute '{key}'")
                attrs[key] = self.value()
        self.stack_frame_sections()
        comps: list[Computation] = []
        while self.peek().kind != "end":
            comps.append(self.computation())
        comps += self.inline
        if not comps:
            self.fail("expected a computation; the text has none")
        seen: dict[str, Computation] = {}
        for c in comps:
            if c.name in seen:
                raise HloParseError(f"computation '{c.name}' is defined twice", c.line, c.column)
            seen[c.name] = c
        if sum(c.is_entry for c in comps) > 1:
            second = [c for c in comps if c.is_entry][1]
            raise HloParseError(f"a second ENTRY computation, '{second.name}'", second.line, second.column)
        return ParsedModule(name, attrs, comps)

    def stack_frame_sections(self) -> None:
        """Skip the ``FileNames``, ``FunctionNames``, ``FileLocations`` and ``StackFrames``
        tables XLA prints after the header: lines of a number and a string or ``{...}``."""
        while self.peek().text in _STACK_FRAME_SECTIONS and self.peek(1).kind == "number":
            self.take()
            while self.peek().kind == "number":
                self.take()
                if self.peek().kind == "string":
                    self.take()
                elif self.is_punct("{"):
                    self.take()
                    self.span_until(lambda t: t.kind == "punct" and t.text == "}", "the table entry")
                    self.take()
                else:
                    self.fail(f"expected a string or '{{' in the table, found {_describe(self.peek())}")

    def computation(self) -> Computation:
        start = self.peek()
        is_entry = start.kind == "word" and start.text == "ENTRY"
        if is_entry:
            self.take()
        head = self.name("a computation name")
        comp = Computation(_bare(head.text), is_entry=is_entry, line=head.line, column=head.column)
        if self.is_punct("("):
            self.signature()
        self.body(comp, head)
        while self.accept(","):  # e.g. execution_thread="main"
            key = self.name("a computation attribute").text
            self.expect("=", f"after computation attribute '{key}'")
            comp.attrs[key] = self.value()
        return comp

    def body(self, comp: Computation, head: Token) -> None:
        """``{ instructions }`` into *comp*."""
        opened = self.expect("{", f"to open the body of computation '{comp.name}'")
        names: set[str] = set()
        while not self.is_punct("}"):
            if self.peek().kind == "end" or self.starts_computation():
                after = self.peek()
                before = "" if after.kind == "end" else f" before the computation at line {after.line}"
                self.fail(f"computation '{comp.name}' opened here is not closed with '}}'{before}", opened)
            for ins in self.instruction():
                if ins.name in names:
                    raise HloParseError(f"instruction '{ins.name}' is defined twice in '{comp.name}'", ins.line,
                                        ins.column)
                names.add(ins.name)
                comp.instructions.append(ins)
        self.take()
        if not comp.instructions:
            raise HloParseError(f"computation '{comp.name}' has no instructions", head.line, head.column)
        if sum(i.is_root for i in comp.instructions) > 1:
            second = [i for i in comp.instructions if i.is_root][1]
            raise HloParseError(f"computation '{comp.name}' has a second ROOT, '{second.name}'", second.line,
                                second.column)

    def starts_computation(self) -> bool:
        """Whether the next tokens start a computation (``ENTRY name``, ``name {``, ``name (``)
        rather than an instruction (``[ROOT] name =``)."""
        first, second = self.peek(), self.peek(1)
        if first.kind == "word" and first.text == "ENTRY":
            return True
        return first.text != "ROOT" and second.kind == "punct" and second.text in ("{", "(")

    def inline_computation(self, owner: str, key: Token) -> str:
        """A computation written in place (``to_apply={ ... }``); its generated name."""
        self.nested += 1
        comp = Computation(f"{owner}.{key.text}.{self.nested}", line=key.line, column=key.column)
        self.body(comp, key)
        self.inline.append(comp)
        return comp.name

    def signature(self) -> None:
        """``(name: shape, ...) -> shape``: checked for form; the parameters' shapes are those
        of the parameter instructions."""
        self.expect("(", "to open the parameter list")
        while not self.accept(")"):
            self.name("a parameter name")
            self.expect(":", "after a parameter name")
            self.shape()
            if not self.is_punct(")"):
                self.expect(",", "between parameters")
        self.expect("->", "after the parameter list")
        self.shape()

    # -- instructions ----------------------------------------------------------------------------------

    def instruction(self) -> list[Instruction]:
        """One instruction, preceded by those written in place as its operands."""
        t = self.peek()
        is_root = t.kind == "word" and t.text == "ROOT"
        if is_root:
            self.take()
        head = self.name("an instruction name")
        self.expect("=", f"after instruction name '{_bare(head.text)}'")
        out: list[Instruction] = []
        shape = self.shape() if self.starts_shape() else None
        self.rhs(_bare(head.text), head, is_root, shape, out, 0)
        return out

    def starts_shape(self) -> bool:
        return self.is_punct("(") or (self.peek().text in ELEMENT_TYPES and self.is_punct("[", 1))

    def rhs(self, name: str, head: Token, is_root: bool, shape: Shape | None, out: list[Instruction],
            depth: int) -> Instruction:
        """``opcode(operands), attributes`` after the shape (None when the text leaves it to be
        inferred); instructions nested as operands go to *out* first."""
        op = self.peek()
        if op.kind != "word":
            self.fail(f"expected an opcode after the shape of '{name}', found {_describe(op)}")
        self.take()
        if shape is None and self.is_punct("["):
            self.fail(f"unknown element type '{op.text}' (XLA has pred, s4 ... s64, u4 ... u64, f16, bf16, f32, "
                      "f64, the f8 types, c64, c128, token)", op)
        ins = Instruction(name, shape, op.text, [], {}, head.line, is_root, column=head.column)  # type: ignore[arg-type]
        self.expect("(", f"after opcode '{op.text}'")
        if op.text == "constant":
            ins.literal = self.span_until_close()
        elif op.text == "parameter":
            number = self.peek()
            if number.kind != "number" or not number.text.isdigit():
                self.fail(f"parameter '{ins.name}' needs a parameter number, found {_describe(number)}")
            ins.literal = self.take().text
        else:
            while not self.is_punct(")"):
                if ins.operands:
                    self.expect(",", f"between the operands of '{ins.name}'")
                operand_shape = self.shape() if self.starts_shape() else None
                operand = self.name(f"an operand of '{ins.name}'")
                if self.is_punct("("):  # an instruction in place, its shape given or left to infer
                    if depth >= MAX_NESTED_INSTRUCTIONS:
                        self.fail(f"instructions nested more than {MAX_NESTED_INSTRUCTIONS} deep")
                    self.at -= 1
                    self.nested += 1
                    inner = self.rhs(f"{operand.text}.inline.{self.nested}", operand, False, operand_shape,
                                     out, depth + 1)
                    ins.operands.append(inner.name)
                else:
                    ins.operands.append(_bare(operand.text))
                ins.operand_positions.append((operand.line, operand.column))
        self.expect(")", f"to close the operands of '{ins.name}'")
        # An attribute is ', key=value'; a ',' followed by anything else belongs to the operand
        # list this instruction is nested in.
        while self.is_punct(",") and (depth == 0 or self.is_punct("=", 2)):
            self.take()
            key = self.name(f"an attribute of '{ins.name}'")
            self.expect("=", f"after attribute '{key.text}'")
            if key.text in ins.attrs:
                self.fail(f"attribute '{key.text}' is given twice", key)
            ins.attr_positions[key.text] = (key.line, key.column)
            # '{' then 'name =' (or 'ROOT'): a computation in place, not a brace-list value
            if key.text in CALLED and self.is_punct("{") and (
                    self.peek(1).text == "ROOT" or self.is_punct("=", 2) or self.is_punct("}", 1)):
                ins.attrs[key.text] = self.inline_computation(ins.name, key)
            else:
                ins.attrs[key.text] = self.value()
        out.append(ins)
        return ins

    # -- shapes ------------------------------------------------------------------------------------------

    def shape(self) -> Shape:
        """A shape, tuples nested to any depth (an explicit stack of open tuples)."""
        open_tuples: list[list[Shape]] = []
        while True:
            if self.accept("("):
                if len(open_tuples) >= MAX_TUPLE_DEPTH:
                    self.fail(f"tuple shapes nested more than {MAX_TUPLE_DEPTH} deep")
                open_tuples.append([])
                if not self.is_punct(")"):
                    continue
                done = None
            else:
                done = self.array_shape()
            while True:  # file the finished shape in its tuple, closing tuples that end here
                if done is not None:
                    if not open_tuples:
                        return done
                    open_tuples[-1].append(done)
                if self.accept(")"):
                    done = Shape("tuple", [], None, open_tuples.pop())
                    continue
                if done is None:
                    self.fail(f"expected a shape or ')', found {_describe(self.peek())}")
                self.expect(",", "between the shapes of a tuple")
                break

    def array_shape(self) -> Shape:
        t = self.peek()
        if t.kind != "word" or t.text not in ELEMENT_TYPES:
            self.fail(f"expected a shape (an element type such as f32 and its dimensions), found {_describe(t)}")
        self.take()
        self.expect("[", f"after element type '{t.text}'")
        dims: list[int] = []
        dynamic: list[bool] = []
        while not self.accept("]"):
            if dims:
                self.expect(",", "between dimensions")
            bounded = self.accept("<=")
            if not bounded and self.accept("?"):
                dims.append(0)
                dynamic.append(True)
                continue
            n = self.peek()
            if n.kind != "number" or not n.text.isdigit():
                self.fail(f"expected a dimension size, found {_describe(n)}")
            self.take()
            dims.append(int(n.text))
            dynamic.append(bounded)
            if math.prod(dims) > MAX_ELEMENTS:
                self.fail(f"a shape of {'x'.join(map(str, dims))} elements does not fit a 64-bit count "
                          f"(XLA's limit is {MAX_ELEMENTS})", n)
        layout = None
        # A layout is '{' followed by a number, ':' or '}'; any other '{' opens a body.
        if self.is_punct("{") and (self.peek(1).kind == "number" or self.peek(1).text in (":", "}")):
            layout = self.layout(len(dims))
        return Shape(ELEMENT_TYPES[t.text], dims, layout, None, t.text, dynamic)

    def layout(self, rank: int) -> list[int]:
        brace = self.take()
        minor_to_major: list[int] = []
        while self.peek().kind == "number":
            n = self.take()
            if not n.text.isdigit():
                self.fail(f"expected a dimension number in the layout, found {_describe(n)}", n)
            minor_to_major.append(int(n.text))
            if not self.accept(","):
                break
        if self.accept(":"):  # tiles, memory space, element size ...: balanced up to the '}'
            self.span_until(lambda t: t.kind == "punct" and t.text == "}", "the layout")
        if not self.is_punct("}"):
            self.fail(f"the layout opened here is not closed with '}}' (found {_describe(self.peek())})", brace)
        self.take()
        if minor_to_major and sorted(minor_to_major) != list(range(rank)):
            self.fail(f"layout {{{','.join(map(str, minor_to_major))}}} is not a permutation of the "
                      f"{rank} dimensions", brace)
        return minor_to_major or list(range(rank - 1, -1, -1))

    # -- values ------------------------------------------------------------------------------------------

    def value(self) -> str:
        """An attribute value: balanced tokens up to a ',' or closing bracket outside brackets,
        or the start of what follows. Parts written without space between them, or joined by
        '->' or '<=', are one value (``b01f_01io->b01f``, ``[2,2]<=[4]T(1,0)``)."""
        first = self.peek()
        last: Token | None = None
        depth: list[Token] = []
        while True:
            t = self.peek()
            if t.kind == "end":
                if depth:
                    self.fail(f"'{depth[-1].text}' opened here is never closed", depth[-1])
                break
            if not depth and last is not None:
                glued = (t.text in ("->", "<=") or last.text in ("->", "<=")
                         or t.offset == last.offset + len(last.text)
                         or (t.kind == "punct" and t.text in _OPEN))  # nothing else starts with one
                if not glued or (t.kind == "punct" and t.text in (",", ")", "]", "}")):
                    break
            if t.kind == "punct" and t.text in _OPEN:
                depth.append(t)
            elif t.kind == "punct" and t.text in _CLOSE:
                if not depth:
                    break
                self.check_close(depth.pop(), t)
            last = self.take()
        if last is None:
            self.fail(f"expected a value, found {_describe(first)}")
        return self.text[first.offset:last.offset + len(last.text)]

    def span_until_close(self) -> str:
        """The source text up to the ')' that closes an open '(' (not consumed)."""
        start = self.peek()
        end = self.span_until(lambda t: t.kind == "punct" and t.text == ")", "the literal")
        return self.text[start.offset:end].strip()

    def span_until(self, stop, what: str) -> int:
        """Skip balanced tokens until *stop* holds outside brackets; the source offset there."""
        depth: list[Token] = []
        while True:
            t = self.peek()
            if t.kind == "end":
                if depth:
                    self.fail(f"'{depth[-1].text}' opened here is never closed", depth[-1])
                self.fail(f"{what} is never closed")
            if not depth and stop(t):
                return t.offset
            if t.kind == "punct" and t.text in _OPEN:
                depth.append(t)
            elif t.kind == "punct" and t.text in _CLOSE:
                if not depth:
                    self.fail(f"unexpected '{t.text}' in {what}")
                self.check_close(depth.pop(), t)
            self.take()

    def check_close(self, opened: Token, closing: Token) -> None:
        if _OPEN[opened.text] != closing.text:
            self.fail(f"'{closing.text}' closes the '{opened.text}' opened at line {opened.line}, "
                      f"column {opened.column}", closing)


def _bare(name: str) -> str:
    return name[1:] if name.startswith("%") else name


def _describe(t: Token) -> str:
    return "the end of the text" if t.kind == "end" else repr(t.text if len(t.text) <= 40 else t.text[:37] + "...")


def parse_module(text: str) -> ParsedModule:
    """The structure of the HLO module in *text*.

    :raises HloParseError: naming the line and column where the text departs from the grammar.
    """
    if not isinstance(text, str):
        raise TypeError(f"hlo: the text must be a str, not {type(text).__name__}")
    return _Parser(text).module()

"""Schedules, tensors, operations and expressions as JSON text (TVM's ``save_json`` / ``load_json``).

The text is a graph: every object of ours is one node, ``{"class": "module:Name", "state": {...}}``,
and refers to others as ``{"ref": k}``, so shared objects stay shared (an IterVar used by two
stages is one IterVar after loading) and cycles (stages and their schedule) survive. Lists,
tuples, dicts with any keys, sets and enums are tagged so that they come back as they were.
Loading builds only classes of this project's packages, never arbitrary code. Both directions
walk with explicit stacks, so pipelines thousands of stages deep round-trip.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import json
import math
from typing import Any

from schedule.base.moved import new_location

#: The packages whose classes a document may name.
PACKAGES = ("schedule", "bound", "lower")
FORMAT = "tebound-json"
_ITEMS = "__dict_items__"
VERSION = 1


def save_json(obj: Any) -> str:
    """*obj* (a schedule, tensor, operation, expression, lowered function ...) as JSON text.

    :raises TypeError: for something in it that has no JSON form (a Python function, a
        foreign object), naming its type.
    """
    ids: dict[int, int] = {}
    objects: list[Any] = []

    def ref(x: Any) -> dict[str, int]:
        k = ids.get(id(x))
        if k is None:
            k = ids[id(x)] = len(objects)
            objects.append(x)
        return {"ref": k}

    try:
        return _save(obj, objects, ref)
    except RecursionError:
        raise TypeError("save_json: a list, tuple or dict nests too deeply to save") from None


def _save(obj: Any, objects: list[Any], ref: Any) -> str:
    root = _encode(obj, ref)
    nodes = []
    k = 0
    while k < len(objects):  # encoding a node may append the nodes it refers to
        x = objects[k]
        nodes.append({"class": _class_name(type(x)), "state": {n: _encode(v, ref) for n, v in _state(x).items()}})
        k += 1
    return json.dumps({"format": FORMAT, "version": VERSION, "root": root, "nodes": nodes})


def load_json(text: str) -> Any:
    """The object :func:`save_json` wrote as *text*.

    :raises ValueError: for text that is not such a document, naming what is wrong.
    """
    try:
        doc = json.loads(text)
    except (TypeError, json.JSONDecodeError) as err:
        raise ValueError(f"load_json: not JSON text: {err}") from None
    except RecursionError:
        raise ValueError("load_json: the JSON text nests deeper than any document save_json writes") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"load_json: not a document save_json wrote (its 'format' is not {FORMAT!r})")
    if doc.get("version") != VERSION:
        raise ValueError(f"load_json: version {doc.get('version')!r}; this reader knows version {VERSION}")
    nodes = doc.get("nodes")
    if not isinstance(nodes, list):
        raise ValueError("load_json: the document has no list of nodes")
    objects = [_new(node, k) for k, node in enumerate(nodes)]
    try:
        return _fill(doc, nodes, objects)
    except RecursionError:
        raise ValueError("load_json: a value nests deeper than any document save_json writes") from None


def _fill(doc: dict, nodes: list, objects: list[Any]) -> Any:
    for k in _children_first(nodes):
        state = nodes[k].get("state")
        if not isinstance(state, dict):
            raise ValueError(f"load_json: node {k} has no state")
        values = {name: _decode(v, objects) for name, v in state.items()}
        if dataclasses.is_dataclass(objects[k]):  # a field added since the text was saved takes its default
            for f in dataclasses.fields(objects[k]):
                if f.init and f.name not in values and f.default is not dataclasses.MISSING:
                    values[f.name] = f.default
        _restore(objects[k], values)
        missing = [f.name for f in dataclasses.fields(objects[k]) if f.init and f.name not in values] \
            if dataclasses.is_dataclass(objects[k]) else []
        if missing:
            raise ValueError(f"load_json: node {k} ({type(objects[k]).__name__}) lacks {', '.join(missing)}")
    return _decode(doc.get("root"), objects)


def _children_first(nodes: list) -> list[int]:
    """The nodes in an order that restores what a node refers to before the node (cycles, such
    as a stage and its schedule, are cut anywhere), so that an object used as a dict key or set
    member is complete before it is hashed."""
    refs = [list(_refs(node.get("state"), len(nodes))) if isinstance(node, dict) else [] for node in nodes]
    seen = [False] * len(nodes)
    order: list[int] = []
    for start in reversed(range(len(nodes))):
        if seen[start]:
            continue
        seen[start] = True
        stack = [(start, iter(refs[start]))]
        while stack:
            k, pending = stack[-1]
            for j in pending:
                if not seen[j]:
                    seen[j] = True
                    stack.append((j, iter(refs[j])))
                    break
            else:
                stack.pop()
                order.append(k)
    return order


def _refs(state: Any, n: int) -> Any:
    """The node numbers a node's state refers to (malformed parts are left to _decode)."""
    stack = [state]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            ref = v.get("ref")
            if len(v) == 1 and isinstance(ref, int) and 0 <= ref < n:
                yield ref
            else:
                stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def _class_name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _own(cls: type) -> bool:
    return cls.__module__.split(".")[0] in PACKAGES


def _state(x: Any) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for cls in type(x).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if name not in ("__dict__", "__weakref__") and hasattr(x, name):
                state[name] = getattr(x, name)
    if hasattr(x, "__dict__"):
        got = x.__getstate__()
        state.update(got if isinstance(got, dict) else vars(x))
    if isinstance(x, dict):  # a dict of ours (an operation's attributes): its items too
        state[_ITEMS] = dict(x)
    return state


def _encode(v: Any, ref: Any) -> Any:
    """The JSON form of *v*; objects of ours become references (containers nest only as deep
    as they do inside one object)."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, enum.Enum):
        return {"enum": _class_name(type(v)), "value": v.value}
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else {"float": repr(v)}
    if isinstance(v, list):
        return {"list": [_encode(x, ref) for x in v]}
    if isinstance(v, tuple) and type(v) is tuple:
        return {"tuple": [_encode(x, ref) for x in v]}
    if isinstance(v, dict) and type(v) is dict:
        return {"dict": [[_encode(k, ref), _encode(x, ref)] for k, x in v.items()]}
    if isinstance(v, (set, frozenset)):
        return {type(v).__name__: [_encode(x, ref) for x in v]}
    if isinstance(v, type) and _own(v):
        return {"type": _class_name(v)}
    if _own(type(v)):
        return ref(v)
    raise TypeError(f"save_json: a {type(v).__module__}.{type(v).__qualname__} ({v!r:.60}) has no JSON form; "
                    "only the objects of schedules, tensors and expressions can be saved")


def _decode(v: Any, objects: list[Any]) -> Any:
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, dict) and len(v) == 1:
        (tag, body), = v.items()
        if tag == "ref" and isinstance(body, int) and 0 <= body < len(objects):
            return objects[body]
        if tag in ("list", "tuple", "set", "frozenset") and isinstance(body, list):
            items = [_decode(x, objects) for x in body]
            return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[tag](items)
        if tag == "dict" and isinstance(body, list) and all(isinstance(p, list) and len(p) == 2 for p in body):
            return {_decode(k, objects): _decode(x, objects) for k, x in body}
        if tag == "float" and body in ("inf", "-inf", "nan"):
            return float(body)
        if tag == "type" and isinstance(body, str):
            return _lookup(body)
    if isinstance(v, dict) and set(v) == {"enum", "value"}:
        cls = _lookup(v["enum"])
        if not issubclass(cls, enum.Enum):
            raise ValueError(f"load_json: {v['enum']} is not an enumeration")
        return cls(v["value"])
    raise ValueError(f"load_json: unreadable value {v!r:.80}")


def _lookup(name: str) -> type:
    module, _, qualname = name.partition(":")
    module, qualname = new_location(module, qualname)
    if module.split(".")[0] not in PACKAGES or not qualname:
        raise ValueError(f"load_json: class {name!r} is not one of this project's (packages {', '.join(PACKAGES)})")
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        raise ValueError(f"load_json: no class {name!r}") from None
    if not isinstance(obj, type):
        raise ValueError(f"load_json: {name!r} is not a class")
    return obj


def _new(node: Any, k: int) -> Any:
    if not isinstance(node, dict) or not isinstance(node.get("class"), str):
        raise ValueError(f"load_json: node {k} names no class")
    cls = _lookup(node["class"])
    return cls.__new__(cls)


def _restore(obj: Any, state: dict[str, Any]) -> None:
    if isinstance(obj, dict):
        items = state.pop(_ITEMS, {})
        if not isinstance(items, dict):
            raise ValueError(f"load_json: the items of a {type(obj).__name__} are not a dict")
        dict.update(obj, items)
    if hasattr(obj, "__dict__") and getattr(type(obj), "__setstate__", None) is not None:
        obj.__setstate__(state)
        return
    for name, value in state.items():
        object.__setattr__(obj, name, value)

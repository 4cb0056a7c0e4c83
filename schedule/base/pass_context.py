"""Options of the schedule and lowering passes, set for a block of code as TVM's ``PassContext``
sets them::

    with PassContext(config={"tir.UnrollLoop": {"auto_max_step": 16}}):
        f = lower(s, args)

Each pass reads its own key; options not given keep TVM's defaults.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator, Mapping
from typing import Any

#: Every option a pass reads, with TVM's default (a dict of options, or one flag).
DEFAULTS: dict[str, Any] = {
    # every primitive applied to a schedule created inside keeps a copy (s.schedule_record)
    "te.keep_schedule_record": False,
    "tir.UnrollLoop": {"auto_max_step": 0, "auto_max_depth": 8, "auto_max_extent": 0, "explicit_unroll": True,
                       "unroll_local_access": False},
    # Given at all, it turns the pass on (TVM runs it by default; here it is optional).
    "tir.LoopPartition": {"partition_const_loop": False, "no_unroll_loop_with_extent_one": False,
                          "unroll_loop_with_partition_hint_no_interval": False},
    # The bounds of infer_bound, explain, lower and build when a call passes no exact=: exact
    # (True) or TVM's (False). Unset, $TEBOUND_EXACT decides, else the entry point's default.
    "tebound.exact": True,
    # tebound.tvm's TVM-faithful passes (tebound.tvm.tir.transform).
    "tir.Simplify": {"transitively_prove_inequalities": False, "propagate_knowns_to_prove_conditional": False,
                     "propagate_knowns_to_simplify_expressions": False, "convert_boolean_to_and_of_ors": False,
                     "apply_constraints_to_boolean_branches": False},
    "tir.RemoveNoOp": {"use_dataflow_analysis": False, "max_simplification_steps": 0},
    "tir.HoistIfThenElse": {"support_block_scope_hosting": False},
    # Copies of a double-buffered loop's body per iteration of its outer loop.
    "tir.InjectDoubleBuffer": {"split_loop": 1},
    # Vectorized loops lower as serial loops.
    "tir.disable_vectorize": False,
    # Loops of extent 1 are kept (``lower(..., debug_keep_trivial_loop=True)``).
    "tir.debug_keep_trivial_loop": False,
}

#: TVM's other common options, taken so that TVM's programs run, each with the type of its
#: value: what they ask for is what this project always does (every build checks its accesses
#: and keeps its asserts), or concerns code it does not generate (relay, GPU barriers).
ACCEPTED: dict[str, type] = {
    "tir.instrument_bound_checkers": bool, "tir.noalias": bool, "tir.disable_assert": bool,
    "tir.detect_global_barrier": bool, "tir.enable_debug": bool, "tir.is_entry_func": bool,
    "tir.disable_storage_rewrite": bool, "tir.use_async_copy": bool, "tir.ptx_ldg32": bool,
    "tir.merge_dynamic_shared_memory_allocations": bool, "tir.instr_siblings": bool,
    "tir.vtcm_capacity": int, "tir.InjectDoubleBuffer": dict,
    "relay.backend.use_auto_scheduler": bool, "relay.backend.use_meta_schedule": bool,
    "relay.FuseOps.max_depth": int, "relay.fallback_device_type": int,
}

#: TVM's custom passes: ``[(phase, pass), ...]``, run on the lowered function by phase (0 to 3;
#: the phases order them, and all run after our lowering, which is one piece).
ADD_LOWER_PASS = "tir.add_lower_pass"


def _lower_passes(options: Any) -> list[tuple[int, Any]]:
    """*options* of ``tir.add_lower_pass`` checked: (phase, pass) pairs.

    :raises ValueError: naming the entry that is not one.
    """
    if not isinstance(options, (list, tuple)):
        raise ValueError(f"PassContext: {ADD_LOWER_PASS!r} takes a list of (phase, pass) pairs, not {options!r}")
    for entry in options:
        if not (isinstance(entry, (list, tuple)) and len(entry) == 2 and isinstance(entry[0], int)
                and not isinstance(entry[0], bool) and 0 <= entry[0] <= 3 and callable(entry[1])):
            raise ValueError(f"PassContext: {ADD_LOWER_PASS!r}: each entry is (phase 0 to 3, a pass such as "
                             f"tir.transform.prim_func_pass(...)), not {entry!r}")
    return [tuple(e) for e in options]


def lower_passes() -> list[Any]:
    """The custom passes of the enclosing context, in the order of their phases."""
    ctx = PassContext.current()
    entries = ctx.config.get(ADD_LOWER_PASS, []) if ctx is not None else []
    return [p for _, p in sorted(entries, key=lambda e: e[0])]


#: The environment variable for the default bound mode ("1" exact, "0" TVM's), below a context.
EXACT_VARIABLE = "TEBOUND_EXACT"

_CURRENT: contextvars.ContextVar[PassContext | None] = contextvars.ContextVar("pass_context", default=None)
_TVM_RULES: contextvars.ContextVar[bool] = contextvars.ContextVar("tvm_rules", default=False)


class PassContext:
    """A ``with`` block in which ``lower`` and ``build`` use *config*'s options.

    TVM's signature: *opt_level*, *required_pass*, *disabled_pass*, *instruments* and *trace*
    are kept on the context (every pass here runs at any level); *config* takes the keys of
    :data:`DEFAULTS`, which passes here read, and those of :data:`ACCEPTED`.

    :raises ValueError: for a key or an option no pass reads, naming the known ones.
    """

    def __init__(self, opt_level: int = 2, required_pass: Any = None, disabled_pass: Any = None,
                 instruments: Any = None, config: Mapping[str, Any] | None = None, trace: Any = None) -> None:
        if not isinstance(opt_level, int) or isinstance(opt_level, bool) or not 0 <= opt_level <= 4:
            raise ValueError(f"PassContext: opt_level is an int from 0 to 4, not {opt_level!r}")
        for name, passes in (("required_pass", required_pass), ("disabled_pass", disabled_pass)):
            if passes is not None and not (isinstance(passes, (list, tuple, set))
                                           and all(isinstance(p, str) for p in passes)):
                raise ValueError(f"PassContext: {name} is a list of pass names, not {passes!r}")
        self.opt_level = opt_level
        self.required_pass = list(required_pass or [])
        self.disabled_pass = list(disabled_pass or [])
        self.instruments = list(instruments or [])
        self.trace = trace
        self.config: dict[str, Any] = {}
        for key, options in (config or {}).items():
            if key == ADD_LOWER_PASS:
                self.config[key] = _lower_passes(options)
                continue
            if key in ACCEPTED:
                if not isinstance(options, ACCEPTED[key]) or (ACCEPTED[key] is int and isinstance(options, bool)):
                    raise ValueError(f"PassContext: {key!r} takes a {ACCEPTED[key].__name__}, not {options!r}")
                self.config[key] = options
                continue
            if key not in DEFAULTS:
                raise ValueError(f"PassContext: no pass reads {key!r}; known: "
                                 f"{', '.join(sorted([*DEFAULTS, *ACCEPTED]))}")
            if isinstance(DEFAULTS[key], bool):
                if not isinstance(options, bool):
                    raise ValueError(f"PassContext: {key!r} is True or False, not {options!r}")
                self.config[key] = options
                continue
            if not isinstance(options, Mapping):
                raise ValueError(f"PassContext: {key!r} takes a dict of options, not {options!r}")
            unknown = set(options) - set(DEFAULTS[key])
            if unknown:
                raise ValueError(f"PassContext: {key!r} has no option {sorted(unknown)[0]!r}; its options: "
                                 f"{', '.join(DEFAULTS[key])}")
            self.config[key] = dict(options)
        self._tokens: list[contextvars.Token] = []

    def __enter__(self) -> PassContext:
        self._tokens.append(_CURRENT.set(self))
        return self

    def __exit__(self, *exc: Any) -> None:
        _CURRENT.reset(self._tokens.pop())

    @staticmethod
    def current() -> PassContext | None:
        return _CURRENT.get()


def options(key: str) -> Any:
    """The options of pass *key* in force: TVM's defaults, overridden by the enclosing context."""
    ctx = _CURRENT.get()
    if isinstance(DEFAULTS[key], bool):
        return ctx.config.get(key, DEFAULTS[key]) if ctx is not None else DEFAULTS[key]
    return {**DEFAULTS[key], **(ctx.config.get(key, {}) if ctx is not None else {})}


def default_exact(where: str, exact: Any, fallback: bool = True) -> bool:
    """The bound mode of a call: *exact* when given (True or False); else the enclosing
    context's ``"tebound.exact"``; else ``$TEBOUND_EXACT``; else *fallback* (True in our
    packages, False in ``tebound.tvm``, which prints TVM's IR).

    :raises TypeError: for an *exact* that is not a bool or None.
    :raises ValueError: for a ``$TEBOUND_EXACT`` other than "0" or "1".
    """
    if exact is not None:
        if not isinstance(exact, bool):
            raise TypeError(f"{where}: exact= must be True or False, not {exact!r} (or None, the default mode: "
                            f"PassContext key 'tebound.exact', then ${EXACT_VARIABLE})")
        return exact
    ctx = _CURRENT.get()
    if ctx is not None and "tebound.exact" in ctx.config:
        return bool(ctx.config["tebound.exact"])
    value = os.environ.get(EXACT_VARIABLE)
    if value is None or value == "":
        return fallback
    if value not in ("0", "1"):
        raise ValueError(f"{where}: ${EXACT_VARIABLE} is {value!r}; set it to 1 (exact bounds) or 0 (TVM's)")
    return value == "1"


def enabled(key: str) -> bool:
    """Whether the enclosing context names pass *key* (for passes that run only when asked)."""
    ctx = _CURRENT.get()
    return ctx is not None and key in ctx.config


@contextlib.contextmanager
def tvm_rules() -> Iterator[None]:
    """Within the block, the bounds of ``exact=False`` follow TVM v0.7-v0.13 instead of the
    InferBound document's TVM (``tebound.tvm``'s entry points run inside one)."""
    token = _TVM_RULES.set(True)
    try:
        yield
    finally:
        _TVM_RULES.reset(token)


def tvm_rules_on() -> bool:
    """Whether the enclosing block asked for TVM v0.13's bounds (see :func:`tvm_rules`)."""
    return _TVM_RULES.get()

"""Where modules went when the packages were split into layers, so that text saved with
``save_json`` and pickles made before still load.

``MODULES`` maps an old module to its new one; ``SPLIT`` maps each name of an old module that was
split to the module that holds it now. ``install()`` lets the import system find an old module
(pickle imports the module a class was saved from): an old module of ``MODULES`` is the new
module itself, so a patch through either name reaches the code; a split one is a module whose
attributes are looked up in ``SPLIT``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
from typing import Any

MODULES: dict[str, str] = {}
SPLIT: dict[str, dict[str, str]] = {}


def _table(old_package: str, new_package: str, names: str) -> dict[str, str]:
    return {f"{old_package}.{n}": f"{new_package}.{n}" for n in names.split()}


MODULES.update(_table("schedule", "schedule.base", "errors checks recursion pass_context packed memory_info "
                                                   "storage_scope serialize"))
MODULES.update(_table("schedule", "schedule.ir", "dtype expr expr_like arith itervar functor printer reduce "
                                                 "evaluate intrinsics extern_calls buffer extern_stmt ir_builder"))
MODULES.update(_table("schedule", "schedule.operation", "tag op_attrs scan scan_analysis tensor_intrin tensor_ops "
                                                        "autodiff hybrid hybrid.parser hybrid.runtime"))
MODULES.update(_table("schedule", "schedule.schedule", "stage relations relation_passing group dataflow rfactor "
                                                       "normalize transform_layout layout_spec record auto_inline "
                                                       "te_schedule_api"))
MODULES.update(_table("lower", "lower.ir", "stmt stmt_functor printer substitute"))
MODULES.update(_table("lower", "lower.layout", "layout_plot index_map_layout"))
MODULES.update(_table("lower", "lower.operation", "loop_nest"))
MODULES.update(_table("lower", "lower.backend", "nd"))
MODULES.update(_table("lower", "lower.passes", "schedule_ops aliases thread_attrs flatten prefetch hoist_if "
                                               "loop_partition narrow_datatype simplify_stmt storage_rewrite "
                                               "storage_share thread_sync uniform_barriers unroll_loop "
                                               "virtual_thread intrin_lowering vectorize_check"))
MODULES.update(_table("bound", "bound.arith", "linear const_bound simplify interval intset symbols"))
MODULES.update(_table("bound", "bound.operation", "access"))
MODULES.update(_table("bound", "bound.inference", "infer message_passing box_reads exact thread_scope tensorize "
                                                  "read_check"))
MODULES.update(_table("bound", "bound.report", "explain executions nest_walk vector_eval tedd"))


def _split(old: str, homes: dict[str, str]) -> None:
    SPLIT[old] = {name: module for module, names in homes.items() for name in names.split()}


_split("schedule.tensor", {
    "schedule.operation.tensor": "Tensor TensorSlice Operation",
    "schedule.operation.placeholder": "PlaceholderOp placeholder",
    "schedule.operation.compute": "ComputeOp compute replace_tensors",
    "schedule.operation.extern": "ExternOp extern extern_body"})
_split("schedule.graph", {
    "schedule.operation.graph": "read_graph post_dfs_order feed_graph",
    "schedule.schedule.graph": "stage_graph attach_ivar attach_path create_attach_path"})
_split("schedule.tensor_compute", {
    "schedule.operation.tensor_compute": "TensorRegion region TensorIntrinCall intrin_call tensorize_at_creation",
    "schedule.operation.compute": "tensor_compute"})


def new_location(module: str, qualname: str) -> tuple[str, str]:
    """Where the class *qualname* of *module* lives now (unchanged if it did not move)."""
    if module in SPLIT:
        return SPLIT[module].get(qualname.split(".")[0], module), qualname
    return MODULES.get(module, module), qualname


class _OldModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds old module names only, after every real module has been looked for."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname in MODULES or fullname in SPLIT:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec: Any) -> Any:
        if spec.name in MODULES:
            module = importlib.import_module(MODULES[spec.name])
            # The import system sets __spec__ on what this returns; exec_module puts it back.
            module.__dict__.setdefault("_spec_before_alias", module.__spec__)
            return module
        module = types.ModuleType(spec.name, f"moved: its names now live in {sorted(set(SPLIT[spec.name].values()))}")
        homes = SPLIT[spec.name]

        def attribute(name: str) -> Any:
            if name not in homes:
                raise AttributeError(f"module {spec.name!r} (moved) has no attribute {name!r}")
            return getattr(importlib.import_module(homes[name]), name)

        module.__getattr__ = attribute  # type: ignore[method-assign]
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the module is an existing one (its own spec restored) or resolves its
        names lazily."""
        own = module.__dict__.pop("_spec_before_alias", None)
        if own is not None:
            module.__spec__ = own


def old_submodule(package: str, name: str) -> types.ModuleType:
    """``package.name`` when that is a module that moved (``te.tensor``, ``bound.infer`` ...):
    what a package's ``__getattr__`` gives for the attribute its submodule used to be.

    :raises AttributeError: for any other name, as a missing attribute does.
    """
    full = f"{package}.{name}"
    if full not in MODULES and full not in SPLIT:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    install()
    return importlib.import_module(full)


def install() -> None:
    """Let the import system find the old module names (once)."""
    if not any(isinstance(f, _OldModules) for f in sys.meta_path):
        sys.meta_path.append(_OldModules())

"""Schedule templates and tuning tasks, as TVM's ``autotvm.template`` / ``autotvm.task.create``.

A template is a function of plain arguments (ints, floats, strings, tuples of them) that builds
a schedule and asks :func:`get_config` for the knobs it uses. Decorated with
:func:`template`, calling it uses the configuration the current dispatch context gives for
its workload (``apply_history_best``, a tuner's trial, or the fallback). :func:`create` makes a
:class:`Task`: the template, its arguments and its configuration space.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Sequence
from typing import Any

from lower.build import as_target
from lower.target import Target
from tune.autotvm.dispatch import DispatchContext
from tune.autotvm.flop import compute_flop
from tune.autotvm.space import ConfigEntity, ConfigSpace, FallbackConfigEntity, InstantiationError

#: Registered templates by task name.
TASK_TABLE: dict[str, Callable[..., Any]] = {}

_current = threading.local()


def get_config() -> Any:
    """The configuration of the template being called: a :class:`ConfigSpace` while the space is
    collected, a :class:`ConfigEntity` while a schedule is made. Outside a template, a new
    :class:`FallbackConfigEntity` (what TVM's contexts answer for no workload), on which a
    fallback schedule may set its knobs."""
    cfg = getattr(_current, "config", None)
    return FallbackConfigEntity() if cfg is None else cfg


class _Using:
    """Makes *config* what :func:`get_config` returns in this thread, for a ``with`` block."""

    def __init__(self, config: Any) -> None:
        self.config = config

    def __enter__(self) -> Any:
        self.saved = getattr(_current, "config", None)
        _current.config = self.config
        return self.config

    def __exit__(self, *exc: Any) -> None:
        _current.config = self.saved


def workload_args(args: Sequence[Any]) -> tuple[Any, ...]:
    """*args* as a hashable, JSON-able tuple (lists become tuples)."""
    def norm(x: Any) -> Any:
        if isinstance(x, (list, tuple)):
            return tuple(norm(y) for y in x)
        if x is None or isinstance(x, (bool, int, float, str)):
            return x
        if hasattr(x, "item") and callable(x.item):  # NumPy scalars
            return norm(x.item())
        raise TypeError(f"autotvm: template arguments are ints, floats, strings, bools, None and tuples of "
                        f"them (so that logs can name the workload); got {x!r}")
    return tuple(norm(a) for a in args)


def template(task_name: Any, func: Callable[..., Any] | None = None) -> Any:
    """Registers *func* as the template of *task_name* (``@autotvm.template("name")``); the
    decorated function makes its schedule with the configuration the current dispatch context
    chooses for its arguments."""
    if callable(task_name) and func is None:
        raise TypeError("autotvm.template: give the task a name, @autotvm.template(\"my/task\")")
    if not isinstance(task_name, str) or not task_name:
        raise TypeError(f"autotvm.template: the task name is a non-empty str, got {task_name!r}")

    def register(f: Callable[..., Any]) -> Callable[..., Any]:
        if not callable(f):
            raise TypeError(f"autotvm.template({task_name!r}) decorates a function, got {f!r}")

        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if kwargs:
                raise TypeError("autotvm: call a template with positional arguments (they name its workload)")
            workload = (task_name, *workload_args(args))
            with _Using(DispatchContext.current().query(None, workload)):
                return f(*args)
        wrapper.task_name = task_name  # type: ignore[attr-defined]
        wrapper.template = f  # type: ignore[attr-defined]
        TASK_TABLE[task_name] = f
        return wrapper
    return register(func) if func is not None else register


class Task:
    """A template with its arguments: the unit a tuner searches. ``config_space`` is collected on
    first use; :meth:`instantiate` makes the schedule of one configuration."""

    def __init__(self, name: str, args: Sequence[Any], target: str = "c") -> None:
        self.name = name
        self.args = workload_args(args)
        self.target = target
        self._space: ConfigSpace | None = None
        self._flop: float | None = None
        self._space_schedule: Any = None

    @property
    def func(self) -> Callable[..., Any]:
        try:
            return TASK_TABLE[self.name]
        except KeyError:
            raise ValueError(f"autotvm: no template is registered as {self.name!r}; define it with "
                             f"@autotvm.template({self.name!r}) before using its task") from None

    @property
    def workload_key(self) -> str | None:
        """The auto_scheduler workload key of a task the auto_scheduler made (``auto/<key>``)."""
        return self.name[len("auto/"):] if self.name.startswith("auto/") else None

    @property
    def workload(self) -> tuple[Any, ...]:
        return (self.name, *self.args)

    @property
    def config_space(self) -> ConfigSpace:
        if self._space is None:
            space = ConfigSpace()
            with _Using(space), self._target():
                result = self.func(*self.args)
            self._space = space
            self._space_schedule = result[0] if isinstance(result, (tuple, list)) and result else None
        return self._space

    @property
    def flop(self) -> float:
        """The task's floating-point operations: what the template gave with ``cfg.add_flop``,
        else counted from its computes as TVM counts them (0 when they cannot be counted, such
        as over symbolic shapes)."""
        if self._flop is None:
            space = self.config_space
            try:
                self._flop = space.flop or (compute_flop(self._space_schedule) if self._space_schedule else 0.0)
            except ValueError:
                self._flop = 0.0
        return self._flop

    def instantiate(self, config: ConfigEntity) -> tuple[Any, list[Any]]:
        """The schedule and argument tensors of *config*.

        :raises InstantiationError: when the template rejects it (``cfg.raise_error``) or its
            schedule primitives do.
        """
        if not isinstance(config, (ConfigEntity, FallbackConfigEntity)):
            raise TypeError(f"instantiate: config is an entity of the task's space (task.config_space.get(i)), "
                            f"got {config!r}")
        with _Using(config), self._target():
            try:
                s, args = self.func(*self.args)
            except InstantiationError:
                raise
            except Exception as e:  # a schedule primitive refusing this configuration
                raise InstantiationError(f"{type(e).__name__}: {e}") from e
        if not config.valid():
            raise InstantiationError("; ".join(config.errors))
        return s, list(args)

    def _target(self) -> Any:
        """The task's target as ``Target.current()`` while the template runs, as in TVM (the
        caller's own ``with Target`` if there is one)."""
        if Target.current() is not None:
            return contextlib.nullcontext()
        try:
            return Target(self.target)
        except (TypeError, ValueError):
            return contextlib.nullcontext()

    def __repr__(self) -> str:
        return f"Task(func_name={self.name}, args={self.args}, workload={self.workload})"


def create(task_name: str, args: Sequence[Any], target: Any = "c") -> Task:
    """The task of template *task_name* on *args* (TVM's ``autotvm.task.create``); *target* is
    any target :func:`lower.build` takes (``"llvm"`` runs on C), and logs keep its text."""
    if not isinstance(args, (list, tuple)):
        raise TypeError(f"autotvm.task.create: args is a tuple of the template's arguments, got {args!r}")
    task = Task(task_name, args, _target_name(target))
    task.func  # noqa: B018 - fails early, with the message, for an unknown name
    task.config_space  # noqa: B018 - collected now, as TVM does
    return task


def _target_name(target: Any) -> str:
    """*target* as the text a log keeps (a Target as its text), checked to be one build takes."""
    text = "c" if target is None else str(target)
    try:
        as_target(text)
    except (TypeError, ValueError):
        raise ValueError(f"autotvm: target {target!r} is not one this project builds; use 'llvm' or 'c' "
                         "(compiled C), 'python', or a GPU kind such as 'cuda' (run on C)") from None
    return text

"""Print what a schedule computes: for every stage, the elements it allocates, computes and
needs (explain), then the lowered loops. FUNCTION, in a module or a .py file, takes no
arguments and returns the schedule and its arguments, (s, [A, B, C]) as tvm.lower takes them,
or the schedule alone (then the loops are not printed).

Bounds are exact by default (the regions each stage really needs); --faithful gives TVM's, as
tebound.tvm prints them.

examples:
  tebound-explain my_schedules.py:tiled_matmul
  tebound-explain --faithful mypackage.kernels:conv
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from bound import explain
from lower import lower
from schedule import Schedule
from schedule.base.errors import TeError
from tebound.cli.parser import CommandError, command_parser, run

PROG = "tebound-explain"


def load_function(spec: str) -> Any:
    """The function *spec* (``MODULE:FUNCTION``, MODULE a dotted name or a .py file) names."""
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name.isidentifier():
        raise CommandError(f"expected MODULE:FUNCTION (my_schedules.py:matmul or package.module:matmul), not {spec!r}")
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise CommandError(f"{where}: no such file")
        sys.path.insert(0, str(path.resolve().parent))  # its own imports, as when run as a script
        found = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(found)  # type: ignore[arg-type]
        _import(where, lambda: found.loader.exec_module(module))  # type: ignore[union-attr]
    else:
        sys.path.insert(0, str(Path.cwd()))
        module = _import(where, lambda: importlib.import_module(where))
    fn = getattr(module, name, None)
    if not callable(fn):
        raise CommandError(f"{where} has no function {name!r}")
    return fn


def _import(where: str, load: Any) -> Any:
    try:
        return load()
    except ModuleNotFoundError as err:
        raise CommandError(f"{where}: cannot import it: {err}") from None
    except Exception as err:  # noqa: BLE001 - the user's module: its error, in one line
        raise CommandError(f"{where}: importing it raised {type(err).__name__}: {err}") from None


def schedule_of(value: Any, spec: str) -> tuple[Schedule, list[Any] | None]:
    """The schedule and arguments a function returned."""
    if isinstance(value, Schedule):
        return value, None
    if isinstance(value, (tuple, list)) and len(value) == 2 and isinstance(value[0], Schedule) \
            and isinstance(value[1], (tuple, list)):
        return value[0], list(value[1])
    raise CommandError(f"{spec} returned {type(value).__name__}; return (s, [A, B, C]) or the schedule s")


def main(argv: list[str] | None = None) -> int:
    parser = command_parser(PROG, __doc__)
    parser.add_argument("function", metavar="MODULE:FUNCTION", help="a function returning (s, args) or s")
    parser.add_argument("--faithful", action="store_true", help="TVM's bounds instead of exact ones")
    parser.add_argument("--no-loops", action="store_true", help="print the explain report only")
    args = parser.parse_args(argv)
    return run(PROG, lambda: _explain(args))


def _explain(args: Any) -> int:
    fn = load_function(args.function)
    try:
        value = fn()
    except Exception as err:  # noqa: BLE001 - the user's function: its error, in one line
        raise CommandError(f"{args.function} raised {type(err).__name__}: {err}") from None
    s, tensors = schedule_of(value, args.function)
    exact = not args.faithful
    try:
        print(explain(s, exact=exact))
        if tensors is not None and not args.no_loops:
            print()
            print(lower(s, tensors, exact=exact))
    except (TeError, ValueError, TypeError) as err:
        raise CommandError(f"{args.function}: {err}") from None
    return 0

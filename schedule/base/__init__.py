"""The base of the DSL, below its IR: errors, argument checks, pass options, packed functions,
memory scopes, deep-recursion helpers and serialization. It imports nothing else of ``schedule``."""

from schedule.base.errors import InternalError, ScheduleError, ScheduleTypeError, TeError
from schedule.base.memory_info import MemoryInfo
from schedule.base.packed import get_global_func, register_func
from schedule.base.pass_context import PassContext
from schedule.base.serialize import load_json, save_json

__all__ = ["InternalError", "MemoryInfo", "PassContext", "ScheduleError", "ScheduleTypeError", "TeError",
           "get_global_func", "load_json", "register_func", "save_json"]

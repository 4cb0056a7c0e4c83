"""``te.tag_scope``: a tag for every compute declared inside (TVM's TagScope), as TOPI tags
its operators (``elemwise``, ``broadcast``, ``conv2d_nchw`` ...) for schedules to look for."""

from __future__ import annotations

import contextvars
import functools
import warnings
from collections.abc import Callable
from typing import Any

from schedule.base.errors import ScheduleError

_CURRENT: contextvars.ContextVar[TagScope | None] = contextvars.ContextVar("tag_scope", default=None)


class TagScope:
    """A ``with`` block, or a decorator, that tags the computes declared in it with *tag*.

    Scopes do not nest (TVM: an operator composed of tagged operators would be mistagged);
    a scope whose tag no compute took warns when it closes.
    """

    def __init__(self, tag: str) -> None:
        if not isinstance(tag, str):
            raise ScheduleError(f"tag_scope: a tag is a string, not {type(tag).__name__}")
        self.tag = tag
        self.accessed = False
        self._token: contextvars.Token | None = None

    def __enter__(self) -> TagScope:
        if _CURRENT.get() is not None:
            raise ScheduleError(f"tag_scope: tag '{self.tag}' inside tag '{_CURRENT.get().tag}'; "  # type: ignore[union-attr]
                                "tag scopes do not nest")
        self.accessed = False
        self._token = _CURRENT.set(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        assert self._token is not None
        _CURRENT.reset(self._token)
        self._token = None
        if not self.accessed and exc[0] is None:
            warnings.warn(f"tag '{self.tag}' declared via tag_scope was not used", stacklevel=2)

    def __call__(self, fdecorate: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fdecorate)
        def tagged(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fdecorate(*args, **kwargs)

        return tagged


def tag_scope(tag: str) -> TagScope:
    """The scope of *tag*: ``with te.tag_scope("conv"): ...`` or ``@te.tag_scope(tag="conv")``."""
    return TagScope(tag)


def current_tag(tag: str) -> str:
    """*tag* if given, else the enclosing scope's (marking it used), else ``""``."""
    scope = _CURRENT.get()
    if tag or scope is None:
        return tag
    scope.accessed = True
    return scope.tag

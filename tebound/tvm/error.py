"""TVM's ``tvm.error``: ``TVMError``, the base of the errors a schedule or a build raises here
(:class:`schedule.TeError`; our refusals are also ``ValueError`` or ``TypeError``)."""

from schedule.base.errors import TeError as TVMError

__all__ = ["TVMError"]

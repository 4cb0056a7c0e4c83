"""The lowering passes over the statement IR, one per module: ``schedule_ops`` builds the loop
nests from the schedule; ``aliases``, ``thread_attrs``, ``flatten`` (storage flattening and
layouts), ``prefetch``, ``hoist_if``, ``loop_partition``, ``narrow_datatype``, ``simplify_stmt``,
``storage_rewrite``, ``storage_share``, ``thread_sync``, ``uniform_barriers``, ``unroll_loop``,
``virtual_thread``, ``intrin_lowering`` and ``vectorize_check`` rewrite or check what it built.
``lower.lower`` runs them."""

from lower.passes.schedule_ops import schedule_ops

__all__ = ["schedule_ops"]

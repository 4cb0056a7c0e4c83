"""TVM's ``tvm.contrib.tedd``: the schedule pictures of ``bound.report.tedd``."""

from bound.report.tedd import viz_dataflow_graph, viz_itervar_relationship_graph, viz_schedule_tree

__all__ = ["viz_dataflow_graph", "viz_itervar_relationship_graph", "viz_schedule_tree"]

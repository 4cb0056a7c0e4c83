"""The schedule proper (``te.schedule``): stages and their primitives, iteration-variable
relations, groups, dataflow rewrites (caches), rfactor, normalize, layouts, auto-inline, and TVM's
``te.schedule`` functions (``CreateReadGraph``, ``PostDFSOrder``, ``AutoInlineInjective`` ...)."""

from schedule.schedule.auto_inline import AutoInlineBroadcast, AutoInlineElemWise, AutoInlineInjective
from schedule.schedule.graph import attach_path, create_attach_path, stage_graph
from schedule.schedule.group import Group
from schedule.schedule.relations import Fuse, IterVarRelation, Rebase, Singleton, Split
from schedule.schedule.schedule import Schedule, check_schedule, create_schedule
from schedule.schedule.stage import AttachType, IterVarAttr, Stage
from schedule.schedule.te_schedule_api import (
    CreateAttachPath,
    CreateReadGraph,
    PostDFSOrder,
    ScanFixPointAnalysis,
    ScanGetBody,
)
from schedule.schedule.transform_layout import AXIS_SEPARATOR

__all__ = ["AXIS_SEPARATOR", "AttachType", "AutoInlineBroadcast", "AutoInlineElemWise", "AutoInlineInjective",
           "CreateAttachPath", "CreateReadGraph", "Fuse", "Group", "IterVarAttr", "IterVarRelation",
           "PostDFSOrder", "Rebase", "ScanFixPointAnalysis", "ScanGetBody", "Schedule", "Singleton", "Split",
           "Stage", "attach_path", "check_schedule", "create_attach_path", "create_schedule", "stage_graph"]

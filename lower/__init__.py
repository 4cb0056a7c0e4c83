"""Lowering: ScheduleOps, statement IR, printer, storage flattening, execution."""

"""InferBound on random pipelines and schedules, checked by enumerating the loop nests.

(a) every element a consumer reads lies in the producer's region (both modes);
(b) exact mode is never looser: each stage's largest region and the elements it computes over
    all executions are at most faithful mode's, and root stages' boxes lie inside faithful's
    (attached stages' boxes are relative to loop variables whose meaning differs by mode);
(c) exact regions are the hull of what is read, per execution of the producer's attach loop.
"""

from __future__ import annotations

from collections import defaultdict

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import schedule as te
from bound import BoundError
from bound.inference.infer import infer_normalized
from bound.operation import reads
from schedule.ir.evaluate import evaluate
from schedule.schedule.graph import attach_path

from ..loopnest import body_envs, box, outer_envs, volumes
from ..strategies import describe, pipelines, schedules


def _reads_by_attach_iteration(sn, bounds, stage):
    """For each execution of *stage* (values of its attach loops): the elements its consumers read."""
    path = attach_path(stage)
    outputs = [stage.op.output(k) for k in range(stage.op.num_outputs)]
    groups = defaultdict(set)
    for consumer in sn.stages:
        if consumer.attach_type == te.AttachType.InlinedAlready:
            continue
        accesses = reads(consumer.op, outputs)
        if not accesses:
            continue
        for env in body_envs(bounds, consumer):
            key = tuple(env[iv.var] for iv in path)
            for acc in accesses:
                if evaluate(acc.condition, env):
                    groups[key].add(tuple(evaluate(i, env) for i in acc.indices))
    return path, groups


def _check(sn, bounds, exact, fallbacks=()):
    for stage in sn.stages:
        if stage.attach_type == te.AttachType.InlinedAlready or not isinstance(stage.op, te.ComputeOp):
            continue
        T = stage.op.output(0)
        path, groups = _reads_by_attach_iteration(sn, bounds, stage)
        for key, elements in groups.items():
            env = {iv.var: v for iv, v in zip(path, key)}
            region = box(bounds, T, env)
            for e in elements:
                assert all(lo <= x < hi for x, (lo, hi) in zip(e, region)), (stage.name, e, region)
            if exact and stage.name not in fallbacks:
                hull = [(min(e[d] for e in elements), max(e[d] for e in elements) + 1) for d in range(len(region))]
                assert region == hull, (stage.name, key, region, hull)
        if exact and path and stage.name not in fallbacks:
            for env in outer_envs(bounds, stage):
                if tuple(env[iv.var] for iv in path) not in groups:  # nothing read: nothing realized
                    assert any(hi <= lo for lo, hi in box(bounds, T, env)), (stage.name, env)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_regions_are_sound_exact_is_the_hull_and_inside_faithful(data):
    p = data.draw(pipelines(max_computes=4, max_extent=4))
    s = data.draw(schedules(p))
    note(describe(s))
    sn = s.normalize()
    results, fallbacks = {}, []
    for exact in (False, True):
        try:
            results[exact] = infer_normalized(sn, exact=exact, fallbacks=fallbacks if exact else None)
        except BoundError:
            return
    note(f"exact mode fell back on intervals for: {fallbacks}")
    for exact, bounds in results.items():
        _check(sn, bounds, exact, fallbacks)
    # (b) exact never looser than faithful
    for stage in sn.stages:
        if stage.attach_type == te.AttachType.InlinedAlready or not isinstance(stage.op, te.ComputeOp):
            continue
        tight, loose = volumes(results[True], stage), volumes(results[False], stage)
        assert tight[0] <= loose[0] and tight[1] <= loose[1], (stage.name, tight, loose)
        if not attach_path(stage):
            T = stage.op.output(0)
            for (tlo, thi), (llo, lhi) in zip(box(results[True], T, {}), box(results[False], T, {})):
                assert thi <= tlo or (llo <= tlo and thi <= lhi), stage.name  # empty boxes fit anywhere

"""Bad input to autotvm's TVM-compatible entry points is refused with a message that names
the problem; where TVM raises RuntimeError, the error is also a RuntimeError; the space and
the tuners are unchanged afterwards."""

from __future__ import annotations

import pytest

from tune import autotvm
from tune.autotvm.testing import get_sample_task

TASK, _ = get_sample_task()
SPACE = TASK.config_space

CASES = [
    (lambda: SPACE.get(-1), RuntimeError, r"an index is an int in \[0, 64\), got -1"),
    (lambda: SPACE.get("a"), RuntimeError, r"got 'a'"),
    (lambda: SPACE.point2knob(64), RuntimeError, r"\[0, 64\)"),
    (lambda: SPACE.knob2point([1]), RuntimeError, r"one choice per knob within \[8, 8\]"),
    (lambda: SPACE.knob2point([1, 8]), RuntimeError, "one choice per knob"),
    (lambda: SPACE.get_next_index(0, 0), RuntimeError, "n is a non-zero int"),
    (lambda: SPACE.sample_ints(65), RuntimeError, r"m is an int in \[0, 64\]"),
    (lambda: SPACE.subrange_length(10, 5), RuntimeError, r"0 <= start <= end <= 64"),
    (lambda: SPACE.get_rand_index(start=70), RuntimeError, r"got \[70, 64\)"),
    (lambda: SPACE.multi_filter(3), TypeError, "filter is a function"),
    (lambda: autotvm.tuner.GridSearchTuner(TASK, range_idx=(5, 100)), ValueError, r"within the space's indices"),
    (lambda: autotvm.tuner.RandomTuner(TASK, range_idx=(3,)), ValueError, "pair"),
    (lambda: autotvm.tuner.GATuner(TASK, pop_size=0), ValueError, "pop_size is a positive int"),
    (lambda: autotvm.tuner.GATuner(TASK, mutation_prob=2), ValueError, "mutation_prob"),
    (lambda: autotvm.LocalRunner().run([None], [None]), TypeError, "one MeasureInput and one BuildResult"),
    (lambda: autotvm.measure_option()["runners"], ValueError, "'builder' and 'runner'"),
    (lambda: autotvm.measure_option(runner=object()), TypeError, "a Runner"),
    (lambda: autotvm.tophub.context("nonsense"), ValueError, "unknown target kind"),
    (lambda: autotvm.ApplyHistoryBest([("not", "records")]), TypeError, "pair or a log's path"),
]


@pytest.mark.parametrize("bad, error, match", CASES)
def test_bad_input_is_refused_with_a_message(bad, error, match):
    before = (len(SPACE), SPACE.dims, str(SPACE))
    with pytest.raises(error, match=match):
        bad()
    assert (len(SPACE), SPACE.dims, str(SPACE)) == before


def test_a_fallback_split_that_cannot_be_met_is_a_runtime_error():
    cfg = autotvm.FallbackConfigEntity()
    cfg.define_split("tile", cfg.axis(49), num_outputs=3)
    with pytest.raises(RuntimeError, match="no split of 'tile' meets"):
        cfg.fallback_split("tile", [-1, 1, 0])
    assert cfg["tile"].size == [-1, 1, 1]  # the first choice stays

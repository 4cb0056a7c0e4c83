"""TVM's test_autotvm_index_tuner (v0.14), written anew: grid and random tuners over the
whole space, over an index range, and over a multi-filtered space."""

from tvm import autotvm
from tvm.testing.autotvm import DummyRunner, get_sample_task

# one builder for every tuning here: its workers stay up between them
OPTION = autotvm.measure_option(builder=autotvm.LocalBuilder(), runner=DummyRunner())


def option():
    return OPTION


def filtered_task():
    task, _ = get_sample_task()
    task.config_space.multi_filter(
        filter=lambda e: 32 <= e["tile_x"].size[1] * e["tile_y"].size[1] < 1024)
    return task


def state(tuner):
    return tuner.begin_idx, tuner.end_idx, tuner.range_length, tuner.visited_max


def test_grid_search_tuner():
    task, _ = get_sample_task()
    tuner = autotvm.tuner.GridSearchTuner(task)
    assert state(tuner) == (0, 64, 64, 64) and tuner.index == 0
    tuner = autotvm.tuner.GridSearchTuner(task, range_idx=(8, 15))
    assert state(tuner) == (8, 16, 8, 8) and tuner.index == 8
    tuner.tune(n_trial=8, measure_option=option())
    assert len(tuner.visited) == 8 and not tuner.has_next()

    task = filtered_task()
    tuner = autotvm.tuner.GridSearchTuner(task)
    assert state(tuner) == (0, 64, 64, 34) and tuner.index == 5
    tuner = autotvm.tuner.GridSearchTuner(task, range_idx=(8, 15))
    assert state(tuner) == (8, 16, 8, 4) and tuner.index == 12
    tuner.tune(n_trial=8, measure_option=option())
    assert len(tuner.visited) == 4 and not tuner.has_next()


def test_random_tuner():
    for task, visits in ((get_sample_task()[0], 8), (filtered_task(), 4)):
        tuner = autotvm.tuner.RandomTuner(task, range_idx=(8, 15))
        assert state(tuner) == (8, 16, 8, visits)
        tuner.tune(n_trial=8, measure_option=option())
        assert len(tuner.visited) == visits and not tuner.has_next()
        assert all(8 <= i <= 15 and task.config_space.is_index_valid(i) for i in tuner.visited)


if __name__ == "__main__":
    test_grid_search_tuner()
    test_random_tuner()

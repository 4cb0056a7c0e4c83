"""TVM's test_autotvm_ga_tuner (v0.14), written anew: populations smaller and larger than the
space, with and without a multi_filter; every gene is a valid configuration."""

from tvm import autotvm
from tvm.testing.autotvm import DummyRunner, get_sample_task

# one builder for the four tunings: its workers stay up between them
OPTION = autotvm.measure_option(builder=autotvm.LocalBuilder(), runner=DummyRunner())


def check(pop_size, multi_filter, space_length):
    task, _ = get_sample_task()
    if multi_filter:
        task.config_space.multi_filter(filter=lambda e: 8 <= e["tile_x"].size[1] * e["tile_y"].size[1] < 1024)
    tuner = autotvm.tuner.GATuner(task, pop_size=pop_size)
    valid = {i for i in range(tuner.space.range_length) if tuner.space.is_index_valid(i)}
    assert tuner.visited <= valid
    assert tuner.pop_size == len(tuner.visited) == len(tuner.genes)
    assert len(tuner.space) == space_length
    tuner.tune(n_trial=len(tuner.space), measure_option=OPTION)
    assert tuner.visited <= valid


def test_ga_tuner():
    check(32, False, 64)
    check(100, False, 64)
    check(32, True, 43)
    check(100, True, 43)


if __name__ == "__main__":
    test_ga_tuner()

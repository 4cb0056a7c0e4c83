"""TVM's test_autotvm_measure (v0.14), written anew: every tuner tunes the sample task with
a user's Runner (DummyRunner, which times nothing), also in a process started with spawn;
and LocalRunner hands its ref_input to a user's submit-style executor."""

import concurrent.futures
import multiprocessing
from inspect import Signature

import numpy as np
from tvm import autotvm
from tvm.autotvm import measure
from tvm.autotvm.measure import executor
from tvm.testing.autotvm import DummyRunner, get_sample_task


def test_tuners_with_a_dummy_runner():
    task, _ = get_sample_task()
    option = autotvm.measure_option(builder=autotvm.LocalBuilder(), runner=DummyRunner())
    for tuner_class in (autotvm.tuner.RandomTuner, autotvm.tuner.GridSearchTuner, autotvm.tuner.GATuner,
                        autotvm.tuner.XGBTuner):
        tuner = tuner_class(task)
        tuner.tune(n_trial=10, measure_option=option)
        # DummyRunner's costs are below 1 s, so 2 * 128**3 flops run faster than 1 flop/s
        assert tuner.best_flops > 1, tuner_class
        assert len(tuner.visited) >= 10


def in_a_spawned_process():
    assert multiprocessing.get_start_method(False) == "spawn"
    test_tuners_with_a_dummy_runner()


def test_tuners_in_a_spawned_process():
    process = multiprocessing.get_context("spawn").Process(target=in_a_spawned_process)
    process.start()
    process.join()
    assert process.exitcode == 0


def test_local_runner_passes_ref_input_to_the_executor():
    ref = [np.random.rand(128, 128) for _ in range(3)]
    runner = measure.LocalRunner()
    runner.ref_input = ref

    class Recording(executor.Executor):
        def __init__(self):
            self.called = False

        def submit(self, func, *args, **kwargs):
            self.called = True
            assert Signature.from_callable(func).bind(*args, **kwargs).arguments["ref_input"] is ref
            done = concurrent.futures.Future()
            done.set_result(None)
            return done

    runner.executor = Recording()
    runner.run([None], [None])
    assert runner.executor.called


if __name__ == "__main__":
    test_tuners_with_a_dummy_runner()
    test_local_runner_passes_ref_input_to_the_executor()

"""TVM adapters: TVM's own search policies and cost models tune through measurerd.

auto_scheduler (supported):

    from tvm import auto_scheduler
    import measurerd.tvm
    opts = auto_scheduler.TuningOptions(num_measure_trials=64,
                                        builder=measurerd.tvm.Builder(),
                                        runner=measurerd.tvm.Runner(),
                                        measure_callbacks=[auto_scheduler.RecordToFile("mm.log")])
    task.tune(opts)

measurerd builds and times a candidate in one job, so the pair is a pass-through Builder and a
Runner that sends each MeasureInput's workload key, target, hardware parameters and transform
steps to measurerd and returns TVM MeasureResults with TVM's error codes.

A state to look at on its own: ``measurerd.tvm.write_task_file(path, inputs)`` writes
MeasureInputs as a task file for ``measurerd-worker --once`` (measurerd.tvm.task_file).

MetaSchedule (not supported): ``measurerd.tvm.meta_schedule`` explains why.

Importing this module requires TVM; ``import measurerd`` alone never imports it.
"""

try:
    import tvm as _tvm  # noqa: F401
    from tvm import auto_scheduler as _auto_scheduler  # noqa: F401
except ImportError as e:  # pragma: no cover - exercised where TVM is absent
    raise ImportError("measurerd.tvm needs TVM (import tvm failed: %s); the client without "
                      "TVM is measurerd.Client" % e) from e

from .auto_scheduler import (Builder, Runner, UnsupportedTarget, UnsupportedWorkload,
                             measure_inputs, tuning_options)
from .task_file import task_file, write_task_file
from . import dag, meta_schedule

__all__ = ["Builder", "Runner", "UnsupportedTarget", "UnsupportedWorkload", "dag",
           "measure_inputs", "meta_schedule", "task_file", "tuning_options", "write_task_file"]

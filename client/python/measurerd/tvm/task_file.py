"""TVM MeasureInputs as a measurerd task file (proto-docs/task-format.md): the states of one
search task with its ComputeDAG inline, for ``measurerd-worker --once FILE`` (``--dump-ir`` and
``--dump-source`` show what measurerd lowers and generates for each state) or ``measurer
submit FILE``. This is how a state whose cost surprises is taken out of a tuning run and looked
at on its own:

    measurerd.tvm.write_task_file("state.json", [auto_scheduler.MeasureInput(task, state)],
                                  number=3, repeat=3, check_correctness=True)

The workload goes as its DAG whatever its key, so the file needs only measurerd to run.
"""

import json

from .auto_scheduler import steps_of
from .dag import dag_json


def task_file(inputs, **options) -> dict:
    """The task file (a dict) of MeasureInputs of one search task. ``options`` are the file's
    measure options (number, repeat, min_repeat_ms, check_correctness, ...: task-format.md);
    the worker names any it does not know."""
    inputs = list(inputs)
    if not inputs:
        raise ValueError("a task file needs at least one MeasureInput")
    task = inputs[0].task
    key, target = str(task.workload_key), str(task.target).strip()
    for inp in inputs[1:]:
        if str(inp.task.workload_key) != key or str(inp.task.target).strip() != target:
            raise ValueError("a task file holds the states of one task: %s for %s, and %s for %s"
                             % (key, target, inp.task.workload_key, inp.task.target))
    hw = task.hardware_params
    out = {"workload": {"dag": dag_json(task.compute_dag.tensors), "key": key},
           "target": target,
           "layout_rewrite_option": int(task.layout_rewrite_option),
           "hardware": {"num_cores": int(hw.num_cores),
                        "vector_unit_bytes": int(hw.vector_unit_bytes),
                        "cache_line_bytes": int(hw.cache_line_bytes)},
           "states": [steps_of(inp) for inp in inputs]}
    if options:
        out["options"] = dict(options)
    return out


def write_task_file(path: str, inputs, **options) -> None:
    """Writes task_file(inputs, **options) to ``path`` as JSON."""
    text = json.dumps(task_file(inputs, **options))
    with open(path, "w") as f:
        f.write(text)

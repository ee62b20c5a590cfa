"""Writes a fidelity task file of TVM-tuned states: TVM v0.14 tunes the workload itself
(task.tune with the default SketchPolicy and XGBoost cost model, LocalBuilder(n_parallel=2),
LocalRunner(number=3, repeat=1, min_repeat_ms=100, timeout=10)), for target
llvm -mcpu=znver3, HardwareParams(1, 64, 64, 0, 0, 0, 0, 0) and layout_rewrite_option 1,
and the distinct states its log measured without error become the task's states, in log
order. Tuned states cluster near the best, where ranking them is hardest. Run in TVM's
environment, with one thread as the task says:

  eval "$(../shared/tvm/env.sh)"
  TVM_NUM_THREADS=1 /usr/bin/python3 scripts/bench_lib/tuned_states.py conv2d_nchw \\
      1,32,56,56,64,3,3,1,1 64 OUT.task.json

With --num-cores N (before the name), TVM tunes for HardwareParams(N, ...) and the task
file records num_cores N; set TVM_NUM_THREADS=N to match.

TVM's log is kept beside it as OUT.task.json.tvm.log. The task file measures with number 3,
repeat 3, min_repeat_ms 50 and checks correctness, like sample_states.py's.
"""
import json
import os
import sys

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SCRIPTS)
# TVM's builder processes import the workloads too.
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (SCRIPTS, os.environ.get("PYTHONPATH")) if p)

from tvm import auto_scheduler  # noqa: E402

from bench_lib import tvm_workloads  # noqa: E402,F401
from bench_lib.sample_states import command_line, search_task, write_task  # noqa: E402


def main():
    name, args, trials, path, num_cores = command_line(__doc__)
    task = search_task(name, args, num_cores)
    log = path + ".tvm.log"
    if os.path.exists(log):
        os.remove(log)
    task.tune(auto_scheduler.TuningOptions(
        num_measure_trials=trials, verbose=0,
        runner=auto_scheduler.LocalRunner(number=3, repeat=1, min_repeat_ms=100, timeout=10),
        builder=auto_scheduler.LocalBuilder(n_parallel=2),
        measure_callbacks=[auto_scheduler.RecordToFile(log)]))
    seen, states = set(), []
    with open(log) as f:
        for line in f:
            record = json.loads(line)
            if record["r"][1] != 0:
                continue
            steps = record["i"][1][1]
            text = json.dumps(steps)
            if text not in seen:
                seen.add(text)
                states.append(steps)
    write_task(path, name, args, states, num_cores)
    print(f"tuned_states: {len(states)} tuned states of {name}{tuple(args)} written to {path} "
          f"(TVM's log: {log})")


if __name__ == "__main__":
    main()

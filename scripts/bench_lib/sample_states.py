"""Writes a fidelity task file of TVM-sampled states, as ../shared/fidelity/ was made: state 0
is the initial state, the others are distinct states of
SketchPolicy(task, RandomModel(), seed).sample_initial_population() of TVM v0.14, for
target llvm -mcpu=znver3 and HardwareParams(num_cores, 64, 64, 0, 0, 0, 0, 0), with
layout_rewrite_option 1 (TVM's default for llvm). Run in TVM's environment:

  eval "$(../shared/tvm/env.sh)"
  /usr/bin/python3 scripts/bench_lib/sample_states.py [--num-cores N] dense_bias_relu 128,512,512 32 OUT.task.json

num_cores is 1 unless --num-cores says otherwise; the task file then records it under
"hardware", and scripts/bench-fidelity runs both sides with that many threads.

The task file measures with number 3, repeat 3, min_repeat_ms 50 and checks correctness, like
the shared fidelity set; scripts/bench-fidelity then measures it beside TVM.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import tvm  # noqa: E402
from tvm import auto_scheduler  # noqa: E402

from bench_lib import tvm_workloads  # noqa: E402,F401


def parse_args(text):
    out = []
    for a in text.split(","):
        try:
            out.append(int(a))
        except ValueError:
            out.append(a)
    return out


def command_line(doc):
    """NAME ARGS COUNT PATH with an optional --num-cores N anywhere: (name, args, count, path,
    num_cores). Exits with `doc` on any other form."""
    argv, num_cores = list(sys.argv[1:]), 1
    if "--num-cores" in argv:
        at = argv.index("--num-cores")
        try:
            num_cores = int(argv[at + 1])
        except (IndexError, ValueError):
            sys.exit(doc)
        if num_cores < 1:
            sys.exit(doc)
        del argv[at:at + 2]
    if len(argv) != 4:
        sys.exit(doc)
    return argv[0], parse_args(argv[1]), int(argv[2]), argv[3], num_cores


def search_task(name, args, num_cores=1):
    """The SearchTask of these fidelity tasks: target llvm -mcpu=znver3, `num_cores` cores,
    layout rewrite 1."""
    return auto_scheduler.SearchTask(func=name, args=args, target=tvm.target.Target("llvm -mcpu=znver3"),
                                     hardware_params=auto_scheduler.HardwareParams(num_cores, 64, 64, 0, 0, 0, 0, 0),
                                     layout_rewrite_option=1)


def write_task(path, name, args, states, num_cores=1):
    """Writes the task file of `states` (step lists) with the options of the shared set."""
    out = {"workload": {"function": name, "args": args}, "target": "llvm -keys=cpu -mcpu=znver3",
           "layout_rewrite_option": 1,
           "options": {"number": 3, "repeat": 3, "min_repeat_ms": 50, "check_correctness": True},
           "states": states}
    if num_cores != 1:
        out["hardware"] = {"num_cores": num_cores}
    with open(path, "w") as f:
        json.dump(out, f)


def main():
    name, args, count, path, num_cores = command_line(__doc__)
    task = search_task(name, args, num_cores)
    policy = auto_scheduler.SketchPolicy(task, program_cost_model=auto_scheduler.RandomModel(), seed=1,
                                         verbose=0)
    seen, states = set(), [[]]
    for state in policy.sample_initial_population():
        line = auto_scheduler.measure_record.dump_record_to_string(
            auto_scheduler.MeasureInput(task, state), auto_scheduler.MeasureResult([0.0], 0, "", 0.0, 0))
        steps = json.loads(line)["i"][1][1]
        text = json.dumps(steps)
        if text in seen:
            continue
        seen.add(text)
        states.append(steps)
        if len(states) == count:
            break
    write_task(path, name, args, states, num_cores)
    print(f"sample_states: {len(states)} states of {name}{tuple(args)} written to {path}")


if __name__ == "__main__":
    main()

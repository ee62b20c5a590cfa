"""Writes a fidelity task file of TVM-sampled states, as ../shared/fidelity/ was made: state 0
is the initial state, the others are distinct states of
SketchPolicy(task, RandomModel(), seed).sample_initial_population() of TVM v0.14, for
target llvm -mcpu=znver3 and HardwareParams(num_cores, 64, 64, 0, 0, 0, 0, 0), with
layout_rewrite_option 1 (TVM's default for llvm). Run in TVM's environment:

  eval "$(../shared/tvm/env.sh)"
  /usr/bin/python3 scripts/bench_lib/sample_states.py [--num-cores N] [--seeds K] dense_bias_relu 128,512,512 32 OUT.task.json

num_cores is 1 unless --num-cores says otherwise; the task file then records it under
"hardware", and scripts/bench-fidelity runs both sides with that many threads. With --seeds K
the states come from the populations of seeds 1..K in turn (default 1: seed 1 only), for
more distinct states than one population holds (scripts/sweep-states).

The task file measures with number 3, repeat 3, min_repeat_ms 50 and checks correctness, like
the shared fidelity set; scripts/bench-fidelity then measures it beside TVM.
"""
import itertools
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


def positive_option(argv, name, doc):
    """The value of `name N` (N >= 1) anywhere in argv, removed from it; 1 when absent. Exits
    with `doc` on a missing or bad value."""
    if name not in argv:
        return 1
    at = argv.index(name)
    try:
        value = int(argv[at + 1])
    except (IndexError, ValueError):
        sys.exit(doc)
    if value < 1:
        sys.exit(doc)
    del argv[at:at + 2]
    return value


def command_line(doc, argv=None):
    """NAME ARGS COUNT PATH with an optional --num-cores N anywhere in argv (default the
    program's arguments): (name, args, count, path, num_cores). Exits with `doc` on any other
    form."""
    argv = list(sys.argv[1:] if argv is None else argv)
    num_cores = positive_option(argv, "--num-cores", doc)
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


def sampled_steps(task, seed):
    """The step lists of SketchPolicy(task, RandomModel(), seed)'s initial population."""
    policy = auto_scheduler.SketchPolicy(task, program_cost_model=auto_scheduler.RandomModel(), seed=seed,
                                         verbose=0)
    for state in policy.sample_initial_population():
        line = auto_scheduler.measure_record.dump_record_to_string(
            auto_scheduler.MeasureInput(task, state), auto_scheduler.MeasureResult([0.0], 0, "", 0.0, 0))
        yield json.loads(line)["i"][1][1]


def main():
    argv = list(sys.argv[1:])
    seeds = positive_option(argv, "--seeds", __doc__)
    name, args, count, path, num_cores = command_line(__doc__, argv)
    task = search_task(name, args, num_cores)
    seen, states = set(), [[]]
    populations = itertools.chain.from_iterable(sampled_steps(task, seed) for seed in range(1, seeds + 1))
    for steps in populations:
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

"""Measures a task's states with TVM's own auto_scheduler builder and runner.

    /usr/bin/python3 tvm_side.py REQUEST.json RESULT.json

Run it in TVM's environment (`eval "$(../shared/tvm/env.sh)"`, TVM_NUM_THREADS set). It is
what scripts/bench-fidelity starts as a subprocess; the request is

    {"function": NAME, "args": [...], "target": "llvm -mcpu=znver3",
     "hardware": [num_cores, vector_unit_bytes, cache_line_bytes, 0, 0, 0, 0, 0],
     "layout_rewrite_option": 0,
     "options": {"number": 3, "repeat": 1, "min_repeat_ms": 100, "cooldown_interval": 0,
                 "enable_cpu_cache_flush": false},
     "builder": {"n_parallel": 2, "timeout": 30}, "runner": {"timeout": 20},
     "states": [[steps...], ...]}

and the result

    {"tvm_version": "0.14.0", "results": [{"state": i, "costs": [...], "error_no": 0,
     "error_msg": "", "build_seconds": ..., "all_cost": ...}, ...]}

or {"error": "..."} when nothing could be measured. Each state becomes a v0.6 record line
(workload key json.dumps([NAME, *ARGS])) loaded with
auto_scheduler.measure_record.load_record_from_string, then MeasureInput(task, state).
"""

import json
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# The builder's and runner's pool processes unpickle the workload registry entries, which
# name this directory's tvm_workloads module.
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in [HERE, os.environ.get("PYTHONPATH", "")] if p)


def last_line(msg):
    """The last non-empty line of a TVM error (its backtrace comes first)."""
    lines = [l.strip() for l in str(msg).splitlines() if l.strip()]
    return lines[-1][:400] if lines else ""


def steps_of(state):
    """The step list of a task-file state (either a step list or TVM's [[], steps] form)."""
    if len(state) == 2 and state[0] == [] and isinstance(state[1], list):
        return state[1]
    return state


def record_line(workload_key, target, hardware, layout_rewrite_option, steps):
    return json.dumps({
        "i": [[workload_key, target, hardware, "", layout_rewrite_option, []], [[], steps]],
        "r": [[0.0], 0, 0.0, 0],
        "v": "v0.6",
    })


def measure(req):
    import tvm
    from tvm import auto_scheduler
    from tvm.auto_scheduler.measure_record import load_record_from_string

    import tvm_workloads

    name = req["function"]
    args = tuple(req["args"])
    if name not in tvm_workloads.WORKLOADS:
        return {"error": "no TVM definition of workload %r (known: %s)"
                         % (name, ", ".join(tvm_workloads.WORKLOADS))}
    target = tvm.target.Target(req["target"])
    hw = req["hardware"]
    task = auto_scheduler.SearchTask(
        func=name, args=args, target=target,
        hardware_params=auto_scheduler.HardwareParams(*hw),
        layout_rewrite_option=req["layout_rewrite_option"])
    key = json.dumps([name, *req["args"]])

    results = [None] * len(req["states"])
    inputs, index = [], []
    for i, state in enumerate(req["states"]):
        try:
            line = record_line(key, str(target), hw, req["layout_rewrite_option"], steps_of(state))
            inp, _ = load_record_from_string(line)
            # Replaying the steps here finds a step that does not apply before the builder
            # does, with a message naming it.
            task.compute_dag.infer_bound_from_state(inp.state)
            inputs.append(auto_scheduler.MeasureInput(task, inp.state))
            index.append(i)
        except Exception as e:  # a state TVM cannot load or replay
            results[i] = {"state": i, "costs": [], "error_no": 1,
                          "error_msg": "TVM could not load the state: %s" % last_line(e),
                          "build_seconds": None, "all_cost": None}

    if inputs:
        o = req["options"]
        builder = auto_scheduler.LocalBuilder(timeout=req["builder"]["timeout"],
                                              n_parallel=req["builder"]["n_parallel"])
        runner = auto_scheduler.LocalRunner(
            timeout=req["runner"]["timeout"], number=o["number"], repeat=o["repeat"],
            min_repeat_ms=o["min_repeat_ms"], cooldown_interval=o["cooldown_interval"],
            enable_cpu_cache_flush=o["enable_cpu_cache_flush"])
        t0 = time.time()
        build_results = builder.build(inputs, verbose=0)
        t1 = time.time()
        run_results = runner.run(inputs, build_results, verbose=0)
        t2 = time.time()
        for i, br, mr in zip(index, build_results, run_results):
            results[i] = {
                "state": i,
                "costs": [float(c.value if hasattr(c, "value") else c) for c in mr.costs]
                         if int(mr.error_no) == 0 else [],
                "error_no": int(mr.error_no),
                "error_msg": last_line(mr.error_msg or ""),
                "build_seconds": float(br.time_cost),
                "all_cost": float(mr.all_cost),
            }
    else:
        t0 = t1 = t2 = time.time()
    return {"tvm_version": tvm.__version__, "results": results,
            "wall_build_seconds": t1 - t0, "wall_run_seconds": t2 - t1}


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(sys.argv[1]) as f:
        req = json.load(f)
    try:
        out = measure(req)
    except Exception:
        out = {"error": traceback.format_exc().strip()[-2000:]}
    with open(sys.argv[2], "w") as f:
        json.dump(out, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())

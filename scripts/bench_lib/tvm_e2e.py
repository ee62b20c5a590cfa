"""TVM's side of scripts/bench-tvm-e2e: times a record line, and runs TVM's own tuning.

    /usr/bin/python3 tvm_e2e.py REQUEST.json RESULT.json

Run it in TVM's environment (`eval "$(../shared/tvm/env.sh)"`, TVM_NUM_THREADS set). The
request is

    {"mode": "measure" | "tune",
     "function": NAME, "args": [...], "hardware": [num_cores, 64, 64, 0, 0, 0, 0, 0],
     "record": LINE,                       # our best record, one v0.6 log line
     "options": {"number": 3, "repeat": 3, "min_repeat_ms": 100},
     "builder": {"n_parallel": 2, "timeout": 30}, "runner": {"timeout": 20},
     "rounds": 5,
     # mode "tune" only:
     "trials": T, "tvm_log": PATH,
     "tune_runner": {"number": 3, "repeat": 1, "min_repeat_ms": 100, "timeout": 10},
     "tune_builder": {"n_parallel": 2}}

The record line is loaded with auto_scheduler.measure_record.load_record_from_string; the
SearchTask is the workload registered under NAME (tvm_workloads.py) with ARGS, the record's
own target and HardwareParams(*hardware). Mode "measure" builds the state with LocalBuilder
once and times it `rounds` times, each run with LocalRunner(options) on a fresh copy of the
built library. Mode "tune" runs task.tune(TuningOptions(trials,
tune_runner, tune_builder, RecordToFile(tvm_log))) with the default SketchPolicy (XGBoost
cost model), takes TVM's best record from tvm_log, builds both bests once and times them
interleaved -- ours, TVM's, ours, TVM's ... for `rounds` rounds -- each run with
LocalRunner(options) on a fresh copy of the same built library.

The result is {"tvm_version", "record_target", "record_workload_key", "task_workload_key",
"flop_ct", ...} plus "ours_runs" and, in mode tune, "tune_seconds", "tvm_best_record",
"tvm_runs", each run {"costs", "error_no", "error_msg"}; or
{"error": ..., "stage": ...} when it could not go on.
"""

import json
import os
import shutil
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from tvm_side import last_line  # noqa: E402  (also puts HERE on the pool processes' path)

os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in [HERE, os.environ.get("PYTHONPATH", "")] if p)


class Failure(Exception):
    def __init__(self, stage, msg):
        Exception.__init__(self, msg)
        self.stage = stage


def costs_of(mr):
    return [float(c.value if hasattr(c, "value") else c) for c in mr.costs]


def make_task(req, target):
    from tvm import auto_scheduler
    import tvm_workloads

    name = req["function"]
    if name not in tvm_workloads.WORKLOADS:
        raise Failure("task", "no TVM definition of workload %r (known: %s)"
                      % (name, ", ".join(tvm_workloads.WORKLOADS)))
    return auto_scheduler.SearchTask(
        func=name, args=tuple(req["args"]), target=target,
        hardware_params=auto_scheduler.HardwareParams(*req["hardware"]))


def load_ours(req, out):
    """(task, MeasureInput of our best on it) from the record line."""
    import tvm
    from tvm import auto_scheduler
    from tvm.auto_scheduler.measure_record import load_record_from_string

    line = req["record"].strip()
    try:
        inp, res = load_record_from_string(line)
    except Exception as e:
        raise Failure("load_record_from_string", last_line(e))
    out["record_target"] = str(inp.task.target)
    out["record_workload_key"] = str(inp.task.workload_key)
    out["record_hardware"] = [int(inp.task.hardware_params.num_cores),
                              int(inp.task.hardware_params.vector_unit_bytes),
                              int(inp.task.hardware_params.cache_line_bytes)]
    out["record_costs"] = costs_of(res)
    target = tvm.target.Target(str(inp.task.target))
    task = make_task(req, target)
    out["task_workload_key"] = str(task.workload_key)
    out["flop_ct"] = float(task.compute_dag.flop_ct)
    try:
        # Replaying the steps here names a step that does not apply before the builder does.
        task.compute_dag.infer_bound_from_state(inp.state)
    except Exception as e:
        raise Failure("replay", last_line(e))
    return task, auto_scheduler.MeasureInput(task, inp.state)


def builder_of(b):
    from tvm import auto_scheduler
    return auto_scheduler.LocalBuilder(**b)


def runner_of(req):
    from tvm import auto_scheduler
    o = req["options"]
    return auto_scheduler.LocalRunner(timeout=req["runner"]["timeout"], number=o["number"],
                                      repeat=o["repeat"], min_repeat_ms=o["min_repeat_ms"])


def run_once(runner, inp, br, keep):
    """Times a copy of the built library `keep` (the runner deletes what it ran)."""
    from tvm import auto_scheduler
    if int(br.error_no) != 0:
        return {"costs": [], "error_no": int(br.error_no), "error_msg": last_line(br.error_msg)}
    d = tempfile.mkdtemp(prefix="tvm-e2e-run-")
    path = os.path.join(d, os.path.basename(keep))
    shutil.copy(keep, path)
    copy = auto_scheduler.measure.BuildResult(path, br.args, br.error_no, br.error_msg,
                                              br.time_cost)
    mr = runner.run([inp], [copy], verbose=0)[0]
    shutil.rmtree(d, ignore_errors=True)
    ok = int(mr.error_no) == 0
    return {"costs": costs_of(mr) if ok else [], "error_no": int(mr.error_no),
            "error_msg": "" if ok else last_line(mr.error_msg or "")}


def build_kept(inputs, req, keepdir):
    """Builds `inputs`; (build results, kept copies of their libraries or None)."""
    brs = builder_of(req["builder"]).build(inputs, verbose=0)
    kept = []
    for i, br in enumerate(brs):
        if int(br.error_no) == 0:
            path = os.path.join(keepdir, "%d-%s" % (i, os.path.basename(br.filename)))
            shutil.copy(br.filename, path)
            shutil.rmtree(os.path.dirname(br.filename), ignore_errors=True)
            kept.append(path)
        else:
            kept.append(None)
    return brs, kept


def do_measure(req, out):
    task, ours = load_ours(req, out)
    keepdir = tempfile.mkdtemp(prefix="tvm-e2e-lib-")
    try:
        t0 = time.time()
        brs, kept = build_kept([ours], req, keepdir)
        out["build_seconds"] = float(brs[0].time_cost)
        runner = runner_of(req)
        out["ours_runs"] = [run_once(runner, ours, brs[0], kept[0])
                            for _ in range(req.get("rounds", 1))]
        out["run_wall_seconds"] = time.time() - t0
    finally:
        shutil.rmtree(keepdir, ignore_errors=True)


def do_tune(req, out):
    from tvm import auto_scheduler

    task, ours = load_ours(req, out)
    tr, tb = req["tune_runner"], req["tune_builder"]
    opts = auto_scheduler.TuningOptions(
        num_measure_trials=req["trials"],
        runner=auto_scheduler.LocalRunner(**tr),
        builder=auto_scheduler.LocalBuilder(**tb),
        measure_callbacks=[auto_scheduler.RecordToFile(req["tvm_log"])])
    t0 = time.time()
    try:
        task.tune(opts)  # default SketchPolicy with the XGBoost cost model
    except Exception as e:
        raise Failure("tune", last_line(e))
    out["tune_seconds"] = time.time() - t0
    try:
        with open(req["tvm_log"]) as f:
            lines = [l for l in f if l.strip()]
    except OSError:
        lines = []
    out["tvm_log_records"] = len(lines)
    inp, res = auto_scheduler.load_best_record(req["tvm_log"], task.workload_key)
    if inp is None:
        raise Failure("tvm_best", "TVM's log %s has no record without error" % req["tvm_log"])
    out["tvm_best_record"] = auto_scheduler.measure_record.dump_record_to_string(inp, res).strip()
    out["tvm_best_tune_costs"] = costs_of(res)
    theirs = auto_scheduler.MeasureInput(task, inp.state)

    keepdir = tempfile.mkdtemp(prefix="tvm-e2e-lib-")
    try:
        brs, kept = build_kept([ours, theirs], req, keepdir)
        runner = runner_of(req)
        out["ours_runs"], out["tvm_runs"] = [], []
        for _ in range(req.get("rounds", 2)):
            out["ours_runs"].append(run_once(runner, ours, brs[0], kept[0]))
            out["tvm_runs"].append(run_once(runner, theirs, brs[1], kept[1]))
    finally:
        shutil.rmtree(keepdir, ignore_errors=True)


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(sys.argv[1]) as f:
        req = json.load(f)
    out = {}
    try:
        import tvm
        out["tvm_version"] = tvm.__version__
        if req["mode"] == "measure":
            do_measure(req, out)
        elif req["mode"] == "tune":
            do_tune(req, out)
        else:
            raise Failure("request", "unknown mode %r" % req["mode"])
    except Failure as e:
        out["stage"], out["error"] = e.stage, str(e)
    except Exception:
        out["stage"], out["error"] = "internal", traceback.format_exc().strip()[-2000:]
    with open(sys.argv[2], "w") as f:
        json.dump(out, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())

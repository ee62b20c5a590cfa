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
     "error_msg": "", "build_seconds": ..., "all_cost": ...,
     "codegen_seconds": ...}, ...]}

or {"error": "..."} when nothing could be measured. codegen_seconds is TVM's LLVM stage
alone, from lowered IR to object (see Session.time_codegen), null when it was not timed;
the result's wall_build_seconds (LocalBuilder) and wall_run_seconds (LocalRunner) leave
that extra timing out.

    /usr/bin/python3 tvm_side.py --serve REQUEST.json

builds every state, prints {"tvm_version": ..., "built": [{"state": i, "error_no": ...,
"build_seconds": ...}, ...]} (or {"error": ...}), then answers each line read from stdin
with one JSON line, until end of input: "run I" with state I's result (the states are run one
at a time, in the order asked, in one runner process; codegen_seconds is the lowest of the
"codegen I" timings so far, null before the first), "codegen I" with {"state": I,
"codegen_seconds": S} (TVM's LLVM stage timed once more for state I; null when it could not
be timed). Only these lines go to stdout.

Each state becomes a v0.6 record line
(workload key json.dumps([NAME, *ARGS])) loaded with
auto_scheduler.measure_record.load_record_from_string, then MeasureInput(task, state).
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


def pass_seconds_instrument():
    """A TVM pass instrument class that adds up the seconds spent in outermost passes."""
    import tvm

    @tvm.instrument.pass_instrument
    class PassSeconds:
        def __init__(self):
            self.depth, self.total, self.started = 0, 0.0, 0.0

        def run_before_pass(self, mod, info):
            if self.depth == 0:
                self.started = time.perf_counter()
            self.depth += 1

        def run_after_pass(self, mod, info):
            self.depth -= 1
            if self.depth == 0:
                self.total += time.perf_counter() - self.started

    return PassSeconds


class Session:
    """One task on TVM's side: its states loaded as MeasureInputs, built by LocalBuilder,
    run by LocalRunner one state or all at a time."""

    def __init__(self, req):
        import tvm
        from tvm import auto_scheduler
        from tvm.auto_scheduler.measure_record import load_record_from_string

        import tvm_workloads
        from kept_runner import KeptProcessRunner

        self.tvm_version = tvm.__version__
        name = req["function"]
        if name not in tvm_workloads.WORKLOADS:
            raise LookupError("no TVM definition of workload %r (known: %s)"
                              % (name, ", ".join(tvm_workloads.WORKLOADS)))
        target = tvm.target.Target(req["target"])
        hw = req["hardware"]
        task = auto_scheduler.SearchTask(
            func=name, args=tuple(req["args"]), target=target,
            hardware_params=auto_scheduler.HardwareParams(*hw),
            layout_rewrite_option=req["layout_rewrite_option"])
        key = json.dumps([name, *req["args"]])

        self.results = [None] * len(req["states"])
        self.inputs, self.index = [], []
        for i, state in enumerate(req["states"]):
            try:
                line = record_line(key, str(target), hw, req["layout_rewrite_option"],
                                   steps_of(state))
                inp, _ = load_record_from_string(line)
                # Replaying the steps here finds a step that does not apply before the
                # builder does, with a message naming it.
                task.compute_dag.infer_bound_from_state(inp.state)
                self.inputs.append(auto_scheduler.MeasureInput(task, inp.state))
                self.index.append(i)
            except Exception as e:  # a state TVM cannot load or replay
                self.results[i] = {"state": i, "costs": [], "error_no": 1,
                                   "error_msg": "TVM could not load the state: %s" % last_line(e),
                                   "build_seconds": None, "all_cost": None}
        o = req["options"]
        self.builder = auto_scheduler.LocalBuilder(timeout=req["builder"]["timeout"],
                                                   n_parallel=req["builder"]["n_parallel"])
        # Runs of one state at a time keep one runner process, as a batch would.
        self.runner = KeptProcessRunner(auto_scheduler.LocalRunner(
            timeout=req["runner"]["timeout"], number=o["number"], repeat=o["repeat"],
            min_repeat_ms=o["min_repeat_ms"], cooldown_interval=o["cooldown_interval"],
            enable_cpu_cache_flush=o["enable_cpu_cache_flush"]))
        self.task = task
        self.build_results = []
        self.codegen_seconds = {}  # input position -> seconds of TVM's LLVM stage alone

    def build(self):
        if self.inputs:
            self.build_results = self.builder.build(self.inputs, verbose=0)

    def time_codegen(self):
        """Times TVM's LLVM stage alone (see time_codegen_one) for every built input."""
        for k, br in enumerate(self.build_results):
            if br.error_no == 0:
                self.time_codegen_one(k)

    def time_codegen_one(self, k):
        """Times TVM's LLVM stage alone for the built input at position k and keeps the
        lowest time seen for it: the schedule is lowered as LocalBuilder lowers it, then
        tvm.build turns the lowered module into an LLVM module (code generation and the O3
        pipeline) and saving it emits the object file. The time of the TIR passes tvm.build
        runs first is taken out, so what is left is what measurerd's "compile" stage does:
        LLVM from IR to object. Returns the seconds, or None when it could not be timed."""
        import tvm

        if k >= len(self.build_results) or self.build_results[k].error_no != 0:
            return None
        PassSeconds = pass_seconds_instrument()
        out = tempfile.mkdtemp(prefix="tvm-codegen-")
        try:
            sch, args = self.task.compute_dag.apply_steps_from_state(
                self.inputs[k].state, layout_rewrite=self.task.layout_rewrite_option)
            lowered = tvm.lower(sch, args)
            passes = PassSeconds()
            start = time.perf_counter()
            with tvm.transform.PassContext(instruments=[passes]):
                lib = tvm.build(lowered, target=self.task.target)
            lib.save(os.path.join(out, "kernel.o"))
            seconds = time.perf_counter() - start - passes.total
        except Exception:  # the builder built it; leave its LLVM time unknown
            return None
        finally:
            shutil.rmtree(out, ignore_errors=True)
        best = self.codegen_seconds.get(k)
        self.codegen_seconds[k] = seconds if best is None else min(best, seconds)
        return seconds

    def runnable(self, br):
        """A copy of a build result that the runner may consume: the runner deletes the
        library's directory after timing it, and a state may be run more than once."""
        from tvm.auto_scheduler.measure import BuildResult

        if br.error_no != 0:
            return br
        d = tempfile.mkdtemp(prefix="tvm-side-")
        copy = os.path.join(d, os.path.basename(br.filename))
        shutil.copyfile(br.filename, copy)
        return BuildResult(copy, br.args, br.error_no, br.error_msg, br.time_cost)

    def close(self):
        """Stops the runner process and removes the built libraries."""
        self.runner.close()
        for br in self.build_results:
            if br.error_no == 0 and br.filename:
                shutil.rmtree(os.path.dirname(br.filename), ignore_errors=True)

    def run(self, positions):
        """Runs the built inputs at these positions (indexes into self.inputs) in one
        LocalRunner.run call and fills their results."""
        if not positions:
            return
        inputs = [self.inputs[k] for k in positions]
        builds = [self.runnable(self.build_results[k]) for k in positions]
        measured = self.runner.run(inputs, builds)
        for k, br, mr in zip(positions, builds, measured):
            i = self.index[k]
            self.results[i] = {
                "state": i,
                "costs": [float(c.value if hasattr(c, "value") else c) for c in mr.costs]
                         if int(mr.error_no) == 0 else [],
                "error_no": int(mr.error_no),
                "error_msg": last_line(mr.error_msg or ""),
                "build_seconds": float(br.time_cost),
                "all_cost": float(mr.all_cost),
                "codegen_seconds": self.codegen_seconds.get(k),
            }


def measure(req):
    s = Session(req)
    t0 = time.time()
    s.build()
    t1 = time.time()
    s.time_codegen()  # not part of what TVM does to measure: kept out of both wall times
    t2 = time.time()
    try:
        s.run(list(range(len(s.inputs))))
    finally:
        s.close()
    t3 = time.time()
    return {"tvm_version": s.tvm_version, "results": s.results,
            "wall_build_seconds": t1 - t0, "wall_run_seconds": t3 - t2,
            "wall_codegen_timing_seconds": t2 - t1}


def serve(req, proto):
    """Builds every state, then runs one state per "run I" line read from stdin, answering
    each with one JSON line on `proto`; ends at end of input."""
    def say(obj):
        proto.write(json.dumps(obj) + "\n")
        proto.flush()

    try:
        s = Session(req)
        t0 = time.time()
        s.build()
    except Exception:
        say({"error": traceback.format_exc().strip()[-2000:]})
        return
    by_state = {i: k for k, i in enumerate(s.index)}
    say({"tvm_version": s.tvm_version, "wall_build_seconds": time.time() - t0,
         "built": [{"state": s.index[k], "error_no": int(br.error_no),
                    "build_seconds": float(br.time_cost)} for k, br in enumerate(s.build_results)]})
    try:
        answer(s, by_state, say)
    finally:
        s.close()


def answer(s, by_state, say):
    for line in sys.stdin:
        words = line.split()
        if len(words) != 2 or words[0] not in ("run", "codegen") or not words[1].isdigit():
            say({"error": "bad command %r" % line.strip()})
            continue
        i = int(words[1])
        if not 0 <= i < len(s.results):
            say({"error": "no state %d" % i})
            continue
        if words[0] == "codegen":
            say({"state": i, "codegen_seconds":
                 s.time_codegen_one(by_state[i]) if i in by_state else None})
            continue
        try:
            if i in by_state:
                s.run([by_state[i]])
            say(s.results[i])
        except Exception:
            say({"state": i, "costs": [], "error_no": 8, "build_seconds": None,
                 "all_cost": None, "error_msg": last_line(traceback.format_exc())})


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        with open(sys.argv[2]) as f:
            req = json.load(f)
        # TVM and its pool processes may print; the answers get a descriptor of their own.
        proto = os.fdopen(os.dup(1), "w")
        os.dup2(2, 1)
        serve(req, proto)
        return 0
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

"""The body of scripts/bench-tvm: tunes matmul N with TVM's SketchPolicy (XGBoost cost model)
twice in this process, once measuring through measurerd (measurerd.tvm.Builder + Runner, a
private daemon with W workers) and once through TVM's LocalBuilder(n_parallel=P) +
LocalRunner, with the same seeds, trials and measure options (TVM's defaults: number=3,
repeat=1, min_repeat_ms=100, run timeout 10 s, build timeout 15 s), num_cores 1,
TVM_NUM_THREADS=1 and the target llvm -mcpu=<this CPU>. The seeds make the first round's
candidates the same for both runs. Prints per run: wall time of task.tune (search included)
and the part of it spent in the builder and runner, results by error (with their messages),
best GFLOP/s (from each log, as that run measured it), and how many measured states the two
runs share."""

import argparse
import collections
import json
import os
import random
import shutil
import sys
import tempfile
import time

import numpy as np
import tvm
from tvm import auto_scheduler, te

import measurerd
import measurerd.tvm
from measurerd import records

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from bench_lib.daemon import start_daemon  # noqa: E402

OPTIONS = dict(number=3, repeat=1, min_repeat_ms=100)


@auto_scheduler.register_workload("matmul")
def matmul(N, L, M, dtype):  # measurerd's matmul(N, L, M, dtype)
    A = te.placeholder((N, L), name="A", dtype=dtype)
    B = te.placeholder((L, M), name="B", dtype=dtype)
    k = te.reduce_axis((0, L), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return [A, B, C]


class MeasureClock:
    """Seconds spent in TVM's builder and runner functions (the measurement part of a tuning
    run; the rest is search): wraps them, passing every call on."""

    NAMES = ("auto_scheduler.local_builder.build", "auto_scheduler.local_runner.run",
             "auto_scheduler.rpc_runner.run")

    def __init__(self):
        self.seconds = 0.0
        for name in self.NAMES:
            self._wrap(name, tvm.get_global_func(name))

    def _wrap(self, name, inner):
        def timed(*args):
            start = time.time()
            try:
                return inner(*args)
            finally:
                self.seconds += time.time() - start
        tvm.register_func(name, timed, override=True)


class ErrorMessages(auto_scheduler.measure.PythonBasedMeasureCallback):
    """Records leave out error messages: keep them as the results arrive."""

    def __init__(self):
        super().__init__()
        self.seen = collections.Counter()

    def callback(self, policy, inputs, results):
        for r in results:
            if int(r.error_no):
                msg = str(r.error_msg).strip().splitlines()
                self.seen[(int(r.error_no), msg[-1][:200] if msg else "")] += 1


ERROR_NAMES = {v: k for k, v in vars(auto_scheduler.measure.MeasureErrorNo).items()
               if isinstance(v, int)}


def summarize(name, log, seconds, measuring, flop, messages):
    pairs = list(auto_scheduler.load_records(log))
    errors = collections.Counter()
    best = None
    for _, r in pairs:
        e = int(r.error_no)
        if e:
            errors[ERROR_NAMES.get(e, e)] += 1
        else:
            cost = sum(float(c) for c in r.costs) / len(r.costs)
            best = cost if best is None else min(best, cost)
    err = ", ".join("%d x %s" % (n, k) for k, n in sorted(errors.items())) or "no errors"
    gflops = flop / best / 1e9 if best else 0.0
    print("%-10s %6.1f s wall (%5.1f s measuring)  %3d results  %-18s best %.2f GFLOP/s" %
          (name, seconds, measuring, len(pairs), err, gflops))
    for (e, m), n in messages.most_common(5):
        print("           %d x %s: %s" % (n, ERROR_NAMES.get(e, e), m))
    return {json.dumps(r.steps) for r in records.read_records(log)}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--trials", type=int, default=64)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--workers", type=int, default=2, help="measurerd workers")
    ap.add_argument("--parallel", type=int, default=2, help="TVM LocalBuilder n_parallel")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--order", default="measurerd,tvm")
    ap.add_argument("--target", default=None,
                    help="TVM target (default: llvm -mcpu=<this CPU>, as measurerd's workers "
                         "compile with -march=native)")
    args = ap.parse_args()
    target = args.target or "llvm -mcpu=" + tvm.target.codegen.llvm_get_system_cpu()

    n = args.size
    task = auto_scheduler.SearchTask(
        func="matmul", args=(n, n, n, "float32"), target=tvm.target.Target(target),
        hardware_params=auto_scheduler.HardwareParams(1, 64, 64, 0, 0, 0, 0, 0))
    tmp = tempfile.mkdtemp(prefix="bench-tvm-")
    proc, sock = start_daemon(args.build, args.workers, tmp)
    print("matmul %d, %d trials, target %s, SketchPolicy seed %d, %s, TVM_NUM_THREADS=%s, "
          "measurerd %d workers, LocalBuilder n_parallel %d, cpu: %s"
          % (n, args.trials, target, args.seed,
             ", ".join("%s=%s" % kv for kv in OPTIONS.items()),
             os.environ.get("TVM_NUM_THREADS"), args.workers, args.parallel,
             measurerd.Client(sock).welcome.cpu_model))
    try:
        steps = {}
        measurerd.tvm.Builder()  # measurerd's functions are installed, then timed with TVM's
        clock = MeasureClock()
        for which in args.order.split(","):
            log = os.path.join(tmp, "tune-%s.json" % which)
            if which == "measurerd":
                builder = measurerd.tvm.Builder()
                runner = measurerd.tvm.Runner(sock, verbose=0, **OPTIONS)
                runner.check_task(task)
            else:
                builder = auto_scheduler.LocalBuilder(n_parallel=args.parallel)
                runner = auto_scheduler.LocalRunner(**OPTIONS)
            messages = ErrorMessages()
            options = auto_scheduler.TuningOptions(
                num_measure_trials=args.trials, builder=builder, runner=runner,
                measure_callbacks=[auto_scheduler.RecordToFile(log), messages], verbose=0)
            # The same seeds for both runs: the untrained cost model draws from numpy's.
            random.seed(args.seed)
            np.random.seed(args.seed)
            policy = auto_scheduler.SketchPolicy(task, seed=args.seed, verbose=0)
            clock.seconds = 0.0
            start = time.time()
            task.tune(options, search_policy=policy)
            steps[which] = summarize(which, log, time.time() - start, clock.seconds,
                                     task.compute_dag.flop_ct, messages.seen)
        if len(steps) == 2:
            a, b = steps.values()
            print("states measured by both runs: %d of %d" % (len(a & b), len(a | b)))
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

"""The body of scripts/bench-topi: workloads only TVM knows (topi operators and plain tensor
expressions, registered from their tensors, so that measurerd.tvm sends each as its DAG,
inline) measured on the same states by TVM v0.14's LocalBuilder + LocalRunner and by measurerd
through measurerd.tvm.Runner (a private daemon), in one process.

For each workload: TVM's SketchPolicy (random cost model, --seed) samples --states states,
the initial state first. In each of --passes passes, TVM builds them all
(LocalBuilder(n_parallel=2)), then each state is timed by TVM's LocalRunner and by measurerd
right after one another (who goes first alternates); each side keeps its lowest mean per
state. TVM's runner keeps one process for all of a workload's states, as for a batch of
TVM's tuner (bench_lib/kept_runner.py says why). measurerd checks
each result against its reference interpreter (check_correctness). Both sides use number 3,
repeat 1, min_repeat_ms --min-repeat-ms, target llvm -mcpu=znver3, HardwareParams(1, 64, 64,
0, 0, 0, 0, 0), layout_rewrite_option 1, TVM_NUM_THREADS=1, a run timeout of 20 s and a
build timeout of 30 s.

Printed per workload: states, compared (both succeeded), failures on each side with their
messages, the Spearman rank correlation of our costs with TVM's, the 10th/50th/90th
percentile of our cost / TVM's, the share within 1.5x and within 1.1x (the figure that still
says something where a workload's states all cost about the same and a rank correlation is
noise on both sides); then the mean Spearman and the pooled ratios over all workloads. A workload measurerd refuses is listed with the reason.
With --network NAME, the workloads are the tasks of one of Relay's test networks
(resnet-18, resnet-34, resnet-50 and mobilenet in NHWC as TVM's tune_network_x86 tutorial
builds them; squeezenet_v1.1, inception_v3, densenet-121, vgg-11, dcgan and dqn in NCHW;
resnet3d-18 in NDHWC; mlp, and lstm (four steps of a 128-wide cell); batch 1, random
weights), as auto_scheduler.extract_tasks gives them for the target: layout_rewrite_option 2,
where TVM passes each layout-free weight already in the layout the candidate's schedule gives
it (and so does measurerd), Winograd convolutions included. --include-simple-tasks adds the
tasks extract_tasks leaves out by default (element-wise, split: several outputs, a zeros
fill: no input).
With --te-workloads, the workloads are TVM's own single-operator benchmark set
(tvm.meta_schedule.testing.te_workload.CONFIGS: the operators of the Ansor paper's
evaluation, C1D, C2D, C3D, GMM, GRP, DIL, DEP, T2D, CAP, NRM, SFM, CBR, TBG and the two
Winograd convolutions, each in its listed shapes), named OPERATOR.INDEX (C2D.0 is the first
shape of C2D); WORKLOADs then name some of them (an operator's name alone: all its shapes).
With --json FILE, each state's record (TVM's log line of its last pass), TVM's cost and ours
are written there too, so that an outlier can be replayed (`measurer replay`) or inspected."""

import argparse
import json
import os
import signal
import sys
import tempfile

import numpy as np
import tvm
from tvm import auto_scheduler, te, topi

import measurerd.tvm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from bench_lib import stats  # noqa: E402
from bench_lib.daemon import start_daemon  # noqa: E402
from bench_lib.kept_runner import KeptProcessRunner  # noqa: E402

TARGET = "llvm -mcpu=znver3"
WITHIN = 1.5
CLOSE = 1.1


def conv_bias_relu():
    d = te.placeholder((1, 64, 28, 28), name="data")
    w = te.placeholder((64, 64, 3, 3), name="w")
    b = te.placeholder((64, 1, 1), name="b")
    return [d, w, b, topi.nn.relu(topi.add(topi.nn.conv2d_nchw(d, w, 1, 1, 1), b))]


def conv_dilated():
    d = te.placeholder((1, 32, 30, 30), name="data")
    w = te.placeholder((32, 32, 3, 3), name="w")
    return [d, w, topi.nn.conv2d_nchw(d, w, 1, 2, 2)]


def conv1x1_stride2():
    d = te.placeholder((1, 128, 28, 28), name="data")
    w = te.placeholder((256, 128, 1, 1), name="w")
    return [d, w, topi.nn.conv2d_nchw(d, w, 2, 0, 1)]


def conv_transpose():
    d = te.placeholder((1, 32, 14, 14), name="data")
    w = te.placeholder((32, 16, 4, 4), name="w")
    return [d, w, topi.nn.conv2d_transpose_nchw(d, w, (2, 2), (1, 1), "float32", (0, 0))]


def avg_pool():
    d = te.placeholder((1, 32, 56, 56), name="data")
    return [d, topi.nn.pool2d(d, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "avg",
                              count_include_pad=False)]


def global_pool():
    d = te.placeholder((1, 256, 14, 14), name="data")
    return [d, topi.nn.global_pool(d, "avg")]


def dense_sigmoid():
    a = te.placeholder((32, 512), name="a")
    w = te.placeholder((256, 512), name="w")
    return [a, w, topi.sigmoid(topi.nn.dense(a, w))]


def dense_gelu():
    a = te.placeholder((64, 256), name="a")
    w = te.placeholder((512, 256), name="w")
    d = topi.nn.dense(a, w)
    return [a, w, topi.multiply(topi.multiply(d, 0.5),
                                topi.add(topi.erf(topi.multiply(d, 0.7071067811865476)), 1.0))]


def rms_norm():
    x = te.placeholder((256, 1024), name="x")
    g = te.placeholder((1024,), name="g")
    k = te.reduce_axis((0, 1024), name="k")
    ss = te.compute((256,), lambda i: te.sum(x[i, k] * x[i, k], axis=k), name="ss")
    return [x, g, te.compute((256, 1024), lambda i, j: x[i, j] * te.rsqrt(ss[i] / 1024.0 + 1e-6)
                             * g[j], name="y")]


def matmul_tanh_odd():
    a = te.placeholder((100, 300), name="a")
    b = te.placeholder((300, 70), name="b")
    k = te.reduce_axis((0, 300), name="k")
    c = te.compute((100, 70), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="c")
    return [a, b, topi.tanh(c)]


def softmax3d():
    a = te.placeholder((8, 64, 128), name="a")
    return [a, topi.nn.softmax(a, axis=-1)]


def sum_axis():
    a = te.placeholder((64, 512, 32), name="a")
    return [a, topi.sum(a, axis=1)]


def max_of_exp():
    a = te.placeholder((128, 1024), name="a")
    k = te.reduce_axis((0, 1024), name="k")
    return [a, te.compute((128,), lambda i: te.max(te.exp(a[i, k]), axis=k), name="m")]


def batch_norm_relu():
    x = te.placeholder((1, 64, 56, 56), name="x")
    g, be, m, v = (te.placeholder((64,), name=n) for n in ("g", "be", "m", "v"))
    y = te.compute(x.shape, lambda n, c, h, w: (x[n, c, h, w] - m[c]) / te.sqrt(v[c] + 1e-5)
                   * g[c] + be[c], name="bn")
    return [x, g, be, m, v, topi.nn.relu(y)]


def dense_int8():
    """A quantized dense: uint8 activations, int8 weights, int32 accumulation, requantized."""
    a = te.placeholder((64, 512), name="a", dtype="uint8")
    w = te.placeholder((256, 512), name="w", dtype="int8")
    d = topi.nn.dense(a, w, out_dtype="int32")
    scaled = topi.round(topi.multiply(topi.cast(d, "float32"), 0.01))
    return [a, w, topi.cast(topi.clip(scaled, -128.0, 127.0), "int8")]


def conv2d_int8():
    d = te.placeholder((1, 64, 28, 28), name="data", dtype="int8")
    w = te.placeholder((64, 64, 3, 3), name="w", dtype="int8")
    return [d, w, topi.nn.conv2d_nchw(d, w, 1, 1, 1, out_dtype="int32")]


def max_pool_uint8():
    d = te.placeholder((1, 64, 56, 56), name="data", dtype="uint8")
    return [d, topi.nn.pool2d(d, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "max")]


def int_bitwise():
    # A hash-like mix of int32 tensors: shifts, xor, and, or, not and truncmod.
    a = te.placeholder((512, 512), name="a", dtype="int32")
    b = te.placeholder((512, 512), name="b", dtype="int32")
    mixed = topi.bitwise_xor(topi.left_shift(a, 5), topi.right_shift(b, 3))
    masked = topi.bitwise_or(topi.bitwise_and(mixed, 0xFFFF), topi.bitwise_not(a))
    return [a, b, topi.add(masked, topi.mod(topi.subtract(b, a), 13))]


def requant_uint32():
    # uint32 and int16 arithmetic as a fixed-point requantize: multiply, shift, remainder.
    x = te.placeholder((256, 1024), name="x", dtype="uint32")
    h = te.placeholder((256, 1024), name="h", dtype="int16")
    scaled = topi.right_shift(topi.multiply(x, tvm.tir.const(3000, "uint32")), tvm.tir.const(4, "uint32"))
    narrow = topi.cast(topi.right_shift(h, tvm.tir.const(1, "int16")), "int32")
    return [x, h, topi.add(topi.cast(topi.mod(scaled, tvm.tir.const(65521, "uint32")), "int32"), narrow)]


def conv2d_qnn():
    """A quantized conv2d as relay's QNN lowers it for TVM's build: int32 accumulation plus a
    bias, requantized by a fixed-point multiply (tir.q_multiply_shift), the output zero point,
    clipped to int8."""
    d = te.placeholder((1, 64, 28, 28), name="data", dtype="int8")
    w = te.placeholder((64, 64, 3, 3), name="w", dtype="int8")
    bias = te.placeholder((1, 64, 1, 1), name="bias", dtype="int32")
    acc = topi.add(topi.nn.conv2d_nchw(d, w, 1, 1, 1, out_dtype="int32"), bias)
    scaled = topi.fixed_point_multiply(acc, 1395864371, -8)
    return [d, w, bias, topi.cast(topi.clip(topi.add(scaled, 3), -128, 127), "int8")]


def dense_qnn_per_channel():
    """A quantized dense requantized per output channel (fixed_point_multiply_per_axis: a
    multiplier and shifts per channel, read from tensors)."""
    a = te.placeholder((64, 512), name="a", dtype="uint8")
    w = te.placeholder((256, 512), name="w", dtype="int8")
    m, lshift, rshift = (te.placeholder((256,), name=n, dtype="int32") for n in ("m", "l", "r"))
    acc = topi.nn.dense(a, w, out_dtype="int32")
    scaled = topi.math.fixed_point_multiply_per_axis(acc, m, lshift, rshift, 1, 1, [1])
    return [a, w, m, lshift, rshift, topi.cast(topi.clip(scaled, -128, 127), "int8")]


WORKLOADS = {f.__name__: f for f in (conv_bias_relu, conv_dilated, conv1x1_stride2,
                                     conv_transpose, avg_pool, global_pool, dense_sigmoid,
                                     dense_gelu, rms_norm, matmul_tanh_odd, softmax3d,
                                     sum_axis, max_of_exp, batch_norm_relu, dense_int8,
                                     conv2d_int8, max_pool_uint8, int_bitwise,
                                     requant_uint32, conv2d_qnn, dense_qnn_per_channel)}


def search_task(tensors):
    key = auto_scheduler.ComputeDAG(tensors).workload_key()
    auto_scheduler.workload_registry.register_workload_tensors(key, tensors)
    return auto_scheduler.SearchTask(
        workload_key=key, target=tvm.target.Target(TARGET), layout_rewrite_option=1,
        hardware_params=auto_scheduler.HardwareParams(1, 64, 64, 0, 0, 0, 0, 0))


def mean_cost(result):
    return float(np.mean([float(c) for c in result.costs]))


# Both sides' timeouts (seconds): a state one side gives up on, the other must too.
RUN_TIMEOUT = 20
BUILD_TIMEOUT = 30


# The Relay test networks --network takes, with the layout each is built in.
NETWORKS = {"resnet-18": "NHWC", "resnet-34": "NHWC", "resnet-50": "NHWC", "mobilenet": "NHWC",
            "squeezenet_v1.1": "NCHW", "inception_v3": "NCHW", "densenet-121": "NCHW",
            "vgg-11": "NCHW", "dcgan": "NCHW", "resnet3d-18": "NDHWC", "mlp": "NC", "dqn": "NCHW",
            "lstm": "NC"}
NETWORK_LIST = ", ".join("%s (%s)" % kv for kv in NETWORKS.items())


def te_workload_tasks():
    """The search tasks of TVM's single-operator benchmark set, by OPERATOR.INDEX."""
    from tvm.meta_schedule.testing import te_workload
    return {"%s.%d" % (op, i): (lambda f=func, a=args: search_task(list(f(*a))))
            for op, (func, shapes) in te_workload.CONFIGS.items()
            for i, args in enumerate(shapes)}


def _network(testing, name):
    """(module, params) of the Relay test network `name` (a key of NETWORKS), batch 1, as TVM's
    tutorials build them: the ResNets and MobileNet in NHWC (tune_network_x86), the rest in the
    layout their definitions have."""
    if name.startswith("resnet3d-"):
        return testing.resnet_3d.get_workload(num_layers=int(name.split("-")[1]), batch_size=1,
                                              layout="NDHWC", image_shape=(16, 112, 112, 3))
    if name.startswith("resnet-"):
        return testing.resnet.get_workload(num_layers=int(name.split("-")[1]), batch_size=1,
                                           layout="NHWC", image_shape=(224, 224, 3))
    if name == "mobilenet":
        return testing.mobilenet.get_workload(batch_size=1, layout="NHWC",
                                              image_shape=(224, 224, 3))
    if name == "squeezenet_v1.1":
        return testing.squeezenet.get_workload(batch_size=1, version="1.1")
    if name == "inception_v3":
        return testing.inception_v3.get_workload(batch_size=1, image_shape=(3, 299, 299))
    if name.startswith("densenet-"):
        return testing.densenet.get_workload(densenet_size=int(name.split("-")[1]), batch_size=1)
    if name.startswith("vgg-"):
        return testing.vgg.get_workload(batch_size=1, num_layers=int(name.split("-")[1]))
    if name == "mlp":
        return testing.mlp.get_workload(batch_size=1)
    if name == "dqn":
        return testing.dqn.get_workload(batch_size=1)
    if name == "lstm":
        # Four steps of a 128-wide cell: its gates are a split of one dense's output.
        return testing.lstm.get_workload(iterations=4, num_hidden=128, batch_size=1)
    return testing.dcgan.get_workload(batch_size=1)


def network_tasks(name, include_simple_tasks=False):
    """The tasks auto_scheduler.extract_tasks finds in one of Relay's test networks (batch 1,
    see _network), by their descriptions less "vm_mod_fused_"; layout_rewrite_option 2, as
    TVM's Relay integration gives them. With include_simple_tasks, also the tasks without a
    reduction or a heavy op (element-wise, split, concatenate), as extract_tasks gives them on
    request."""
    from tvm.relay import testing
    if name not in NETWORKS:
        raise ValueError("unknown network %s (known: %s)" % (name, NETWORK_LIST))
    mod, params = _network(testing, name)
    tasks, _ = auto_scheduler.extract_tasks(
        mod["main"], params, tvm.target.Target(TARGET),
        hardware_params=auto_scheduler.HardwareParams(1, 64, 64, 0, 0, 0, 0, 0),
        include_simple_tasks=include_simple_tasks)
    return {t.desc.replace("vm_mod_fused_", ""): t for t in tasks}


def measure(task, args, runner):
    """(TVM's costs, ours, failure lines, record lines) of one task; a failed state's cost
    is None; a record line is TVM's of the state's last pass."""
    policy = auto_scheduler.SketchPolicy(task, program_cost_model=auto_scheduler.RandomModel(),
                                         seed=args.seed, verbose=0)
    states = [task.compute_dag.get_init_state()] + list(
        policy.sample_initial_population())[:args.states - 1]
    inputs = [auto_scheduler.MeasureInput(task, s) for s in states]
    # One runner process for the workload's states, as for a batch (see bench_lib/kept_runner).
    local = KeptProcessRunner(auto_scheduler.LocalRunner(
        number=3, repeat=1, min_repeat_ms=args.min_repeat_ms, timeout=RUN_TIMEOUT))
    tvm_costs, our_costs, failures = [None] * len(inputs), [None] * len(inputs), []
    records = [None] * len(inputs)

    def keep(costs, i, side, result):
        if side == "tvm":
            records[i] = auto_scheduler.measure_record.dump_record_to_string(
                inputs[i], result).strip()
        if int(result.error_no) != 0:
            failures.append("state %d %s: error %d %s" % (i, side, int(result.error_no),
                                                          str(result.error_msg)[:200]))
            return
        c = mean_cost(result)
        costs[i] = c if costs[i] is None else min(costs[i], c)

    for p in range(args.passes):
        # TVM's runner deletes each built file once it ran it: a build per pass.
        built = auto_scheduler.LocalBuilder(n_parallel=2, timeout=BUILD_TIMEOUT).build(
            inputs, verbose=0)
        for i, inp in enumerate(inputs):
            sides = [("tvm", lambda: local.run([inp], [built[i]])[0], tvm_costs),
                     ("measurerd", lambda: runner.measure([inp])[0], our_costs)]
            for side, run, costs in (sides if (i + p) % 2 == 0 else sides[::-1]):
                keep(costs, i, side, run())
    local.close()
    return tvm_costs, our_costs, sorted(set(failures)), records


def compared(tvm_costs, our_costs):
    """(TVM's cost, ours) of the states both sides measured."""
    return [(t, o) for t, o in zip(tvm_costs, our_costs) if t is not None and o is not None]


def spearman(pairs):
    if len(pairs) < 3:
        return float("nan")
    return stats.spearman([t for t, _ in pairs], [o for _, o in pairs])


def row(label, states, pairs, rho):
    ratios = [o / t for t, o in pairs]
    pct = [stats.percentile(ratios, q) if ratios else float("nan") for q in (10, 50, 90)]
    share = stats.share_within(ratios, WITHIN) if ratios else float("nan")
    close = stats.share_within(ratios, CLOSE) if ratios else float("nan")
    return "  %-16s %6d %4d %8.3f %9.2f %6.2f %5.2f %6.0f%% %6.0f%%" % (
        label, states, len(pairs), rho, pct[0], pct[1], pct[2], 100 * share, 100 * close)


def main():
    p = argparse.ArgumentParser(prog="bench-topi", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("workloads", nargs="*", metavar="WORKLOAD",
                   help="workloads to measure (default: all of %s)" % ", ".join(WORKLOADS))
    p.add_argument("--states", type=int, default=16, help="states per workload (default 16)")
    p.add_argument("--passes", type=int, default=2, help="timings per state and side (default 2)")
    p.add_argument("--seed", type=int, default=1, help="SketchPolicy seed (default 1)")
    p.add_argument("--min-repeat-ms", type=int, default=50, help="both sides (default 50)")
    p.add_argument("--build", default="build", help="measurerd's build directory (default build)")
    p.add_argument("--json", metavar="FILE",
                   help="write each state's record, TVM's cost and ours (seconds) to FILE")
    p.add_argument("--network", metavar="NAME",
                   help="measure the tasks of a Relay test network instead (%s; batch 1, "
                        "layout_rewrite_option 2 as TVM's Relay integration gives them); "
                        "WORKLOADs then name some of its tasks" % NETWORK_LIST)
    p.add_argument("--te-workloads", action="store_true",
                   help="measure TVM's single-operator benchmark set instead "
                        "(tvm.meta_schedule.testing.te_workload; WORKLOADs then name some of "
                        "its OPERATOR.INDEX entries, or an OPERATOR for all its shapes)")
    p.add_argument("--include-simple-tasks", action="store_true",
                   help="with --network, also the tasks without a reduction or a heavy op "
                        "(element-wise, split, concatenate: extract_tasks' "
                        "include_simple_tasks)")
    args = p.parse_args()
    if args.include_simple_tasks and not args.network:
        p.error("--include-simple-tasks needs --network")
    if args.network and args.te_workloads:
        p.error("--network and --te-workloads are two different sets: give one")
    if args.te_workloads:
        known = te_workload_tasks()
        operators = {name.split(".")[0] for name in known}
        args.workloads = [w for name in args.workloads for w in (
            sorted((k for k in known if k.split(".")[0] == name), key=lambda k: int(k.split(".")[1]))
            if name in operators else [name])]
    elif args.network:
        try:
            known = network_tasks(args.network, args.include_simple_tasks)
        except ValueError as e:
            p.error(str(e))
    else:
        known = {name: None for name in WORKLOADS}
    unknown = [w for w in args.workloads if w not in known]
    if unknown:
        p.error("unknown workload %s; known: %s" % (", ".join(unknown), ", ".join(known)))
    if args.states < 1 or args.passes < 1:
        p.error("--states and --passes must be at least 1")
    # SIGTERM unwinds like Ctrl-C, so that the daemon below is stopped either way.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    tmp = tempfile.mkdtemp(prefix="bench-topi-")
    proc, sock = start_daemon(args.build, 1, tmp)
    try:
        runner = measurerd.tvm.Runner(sock, verbose=0, check_correctness=True, number=3,
                                      repeat=1, min_repeat_ms=args.min_repeat_ms,
                                      timeout=RUN_TIMEOUT, build_timeout=BUILD_TIMEOUT)
        print("bench-topi: TVM %s and measurerd (%s), %s, %d states per workload, %d passes; "
              "ratio = our mean cost / TVM's%s" % (
                  tvm.__version__, args.build, TARGET, args.states, args.passes,
                  "; the tasks of %s" % args.network if args.network else
                  "; TVM's te_workload set" if args.te_workloads else ""), flush=True)
        print("  %-16s %6s %4s %8s %9s %6s %5s %7s %7s" % (
            "workload", "states", "cmp", "spearman", "ratio p10", "median", "p90", "in1.5x",
            "in1.1x"))
        all_tvm, all_ours, spearmans, per_state = [], [], [], {}
        for name in args.workloads or known:
            task = known[name] or search_task(WORKLOADS[name]())
            if callable(task):
                task = task()
            try:
                tvm_costs, our_costs, failures, records = measure(task, args, runner)
            except measurerd.tvm.UnsupportedWorkload as e:
                print("  %-16s refused by measurerd: %s" % (name, str(e)[:300]), flush=True)
                continue
            pairs = compared(tvm_costs, our_costs)
            rho = spearman(pairs)
            if rho == rho:
                spearmans.append(rho)
            print(row(name, len(tvm_costs), pairs, rho), flush=True)
            for f in failures:
                print("      " + f, flush=True)
            all_tvm += tvm_costs
            all_ours += our_costs
            per_state[name] = [{"state": i, "record": r, "tvm_cost": t, "our_cost": o}
                               for i, (r, t, o) in enumerate(zip(records, tvm_costs, our_costs))]
        mean_rho = sum(spearmans) / len(spearmans) if spearmans else float("nan")
        print(row("all", len(all_tvm), compared(all_tvm, all_ours), mean_rho))
        print("  (all: spearman is the mean of the workloads' values; the ratios are pooled)")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"tvm_version": tvm.__version__, "target": TARGET,
                           "passes": args.passes, "workloads": per_state}, f, indent=1)
            print("per-state figures written to %s" % args.json)
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()

"""measurerd.tvm with the real TVM: TVM's own search policy and cost model tune a matmul
through measurerd, TVM loads the log and builds the best record, and the same states are
measured by TVM's LocalRunner and by measurerd side by side. Skipped, saying why, when TVM is
not importable (tests/python/run sets up ../shared/tvm when it is there)."""

import json
import subprocess

import pytest

try:
    import numpy as np
    import tvm
    from tvm import auto_scheduler, te, topi
except ImportError as e:
    pytest.skip("TVM is not importable (%s): run tests/python/run, which sets up "
                "<repo>/../shared/tvm when it exists, or put a TVM build on PYTHONPATH" % e,
                allow_module_level=True)

import measurerd
import measurerd.tvm
from conftest import build_path
from measurerd import records
from measurerd.tvm.meta_schedule import MetaScheduleNotSupported

N = 64
TARGET = "llvm"
FAST = dict(number=1, repeat=1, min_repeat_ms=20)  # the same for TVM's runner and measurerd's
ONE_CORE = auto_scheduler.HardwareParams(1, 64, 64, 0, 0, 0, 0, 0)


@auto_scheduler.register_workload("matmul")
def matmul(N, L, M, dtype):  # measurerd's matmul(N, L, M, dtype): the same stages and iterators
    A = te.placeholder((N, L), name="A", dtype=dtype)
    B = te.placeholder((L, M), name="B", dtype=dtype)
    k = te.reduce_axis((0, L), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return [A, B, C]


@auto_scheduler.register_workload("tvm_only_matmul")
def tvm_only_matmul(n):
    return matmul(n, n, n, "float32")


@auto_scheduler.register_workload("tvm_popcount")
def tvm_popcount(n):  # a call measurerd's IR does not have
    A = te.placeholder((n,), name="A", dtype="int32")
    return [A, te.compute((n,), lambda i: tvm.tir.popcount(A[i]), name="B")]


def matmul_task(n=N):
    return auto_scheduler.SearchTask(
        func="matmul", args=(n, n, n, "float32"), target=tvm.target.Target(TARGET),
        hardware_params=ONE_CORE)


def inline_task(tensors, **options):
    """A SearchTask of a workload only TVM knows: registered from its tensors, so that
    measurerd.tvm sends it inline as its DAG."""
    key = auto_scheduler.ComputeDAG(tensors).workload_key()
    auto_scheduler.workload_registry.register_workload_tensors(key, tensors)
    return auto_scheduler.SearchTask(workload_key=key, target=TARGET, **options)


def assert_sampled_states_compute(runner, tensors, seed):
    """A workload only TVM knows, its initial state and five states TVM's SketchPolicy samples:
    each is measured through `runner` (which checks correctness) without an error."""
    task = inline_task(tensors, layout_rewrite_option=1, hardware_params=ONE_CORE)
    policy = auto_scheduler.SketchPolicy(task, verbose=0, seed=seed)
    states = [task.compute_dag.get_init_state()] + list(policy.sample_initial_population())[:5]
    results = runner.measure([auto_scheduler.MeasureInput(task, s) for s in states])
    assert [int(r.error_no) for r in results] == [0] * len(states), \
        [str(r.error_msg) for r in results]


def test_tune_through_measurerd_then_load_and_build_the_best_with_tvm(daemon, tmp_path):
    task = matmul_task()
    log = str(tmp_path / "matmul.log")
    runner = measurerd.tvm.Runner(daemon.socket, verbose=0, **FAST)
    runner.check_task(task)
    options = auto_scheduler.TuningOptions(
        num_measure_trials=32, num_measures_per_round=16, builder=measurerd.tvm.Builder(),
        runner=runner, measure_callbacks=[auto_scheduler.RecordToFile(log)], verbose=0)
    task.tune(options)

    pairs = list(auto_scheduler.load_records(log))
    assert len(pairs) == 32
    errors = [(int(r.error_no), str(r.error_msg)) for _, r in pairs if int(r.error_no) != 0]
    assert not errors
    assert all(str(i.task.workload_key) == task.workload_key for i, _ in pairs)
    # The same log through measurerd's own reader.
    assert len(records.read_records(log)) == 32

    sch, args = task.apply_best(log)
    func = tvm.build(sch, args, TARGET)
    a = np.random.uniform(size=(N, N)).astype("float32")
    b = np.random.uniform(size=(N, N)).astype("float32")
    c = tvm.nd.empty((N, N), "float32")
    func(tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4)


def test_the_same_states_with_tvms_local_runner_and_with_measurerd(daemon, capsys):
    task = matmul_task()
    policy = auto_scheduler.SketchPolicy(task, verbose=0, seed=7)
    states = [task.compute_dag.get_init_state()] + list(policy.sample_initial_population())[:7]
    inputs = [auto_scheduler.MeasureInput(task, s) for s in states]

    built = auto_scheduler.LocalBuilder(n_parallel=2).build(inputs, verbose=0)
    local = auto_scheduler.LocalRunner(**FAST).run(inputs, built, verbose=0)
    ours = measurerd.tvm.Runner(daemon.socket, verbose=0, **FAST).measure(inputs)

    rows = []
    for i, (inp, l, m) in enumerate(zip(inputs, local, ours)):
        assert int(l.error_no) == 0, str(l.error_msg)
        assert int(m.error_no) == 0, str(m.error_msg)
        lc, mc = float(np.mean([float(x) for x in l.costs])), float(np.mean([float(x) for x in m.costs]))
        rows.append("  %d  %5d steps  TVM LocalRunner %9.2f us  measurerd %9.2f us  ratio %5.2f"
                    % (i, len(inp.state.transform_steps), lc * 1e6, mc * 1e6, mc / lc))
    with capsys.disabled():
        print("\nmatmul %d, %s, TVM_NUM_THREADS=1, number=%d min_repeat_ms=%d:"
              % (N, TARGET, FAST["number"], FAST["min_repeat_ms"]))
        print("\n".join(rows))


def test_local_builder_and_runner_still_work_beside_the_adapters(daemon):
    measurerd.tvm.Runner(daemon.socket, verbose=0)  # the adapters are installed
    task = matmul_task(16)
    inputs = [auto_scheduler.MeasureInput(task, task.compute_dag.get_init_state())]
    built = auto_scheduler.LocalBuilder(n_parallel=1).build(inputs, verbose=0)
    assert str(built[0].filename)
    (r,) = auto_scheduler.LocalRunner(**FAST).run(inputs, built, verbose=0)
    assert int(r.error_no) == 0


def test_workloads_measurerd_does_not_know_go_inline_as_their_dag(daemon):
    runner = measurerd.tvm.Runner(daemon.socket, verbose=0, check_correctness=True, **FAST)
    named = auto_scheduler.SearchTask(func="tvm_only_matmul", args=(16,), target=TARGET)
    d = te.placeholder((1, 3, 8, 8), name="data")
    w = te.placeholder((4, 3, 3, 3), name="kernel")
    tensors = [d, w, topi.nn.relu(topi.nn.conv2d_nchw(d, w, 1, 1, 1))]
    dag_task = inline_task(tensors)
    for task in (named, dag_task):
        policy = auto_scheduler.SketchPolicy(task, verbose=0, seed=3)
        states = [task.compute_dag.get_init_state()] + list(
            policy.sample_initial_population())[:3]
        results = runner.measure([auto_scheduler.MeasureInput(task, s) for s in states])
        assert [int(r.error_no) for r in results] == [0] * len(states), \
            [str(r.error_msg) for r in results]
    assert isinstance(runner._state.workloads[dag_task.workload_key], measurerd.TensorWorkload)


def test_an_inline_topi_dense_keeps_its_layout_free_weight(daemon):
    """topi's dense marks its weight layout-free; sent inline, the archive says so (format
    version 2), so measurerd re-lays the weight out as TVM does with layout_rewrite_option 1,
    and TVM's multi-level-tiled states, so rewritten, compute what the workload computes."""
    from measurerd.tvm.dag import dag_archive
    a = te.placeholder((16, 64), name="a")
    w = te.placeholder((32, 64), name="w")
    tensors = [a, w, topi.sigmoid(topi.nn.dense(a, w))]
    assert dag_archive(tensors)[6] == 2
    assert dag_archive([a, w, topi.sigmoid(topi.add(a, a))])[6] == 1
    task = inline_task(tensors, layout_rewrite_option=1, hardware_params=ONE_CORE)
    policy = auto_scheduler.SketchPolicy(task, verbose=0, seed=5)
    states = list(policy.sample_initial_population())[:6]
    runner = measurerd.tvm.Runner(daemon.socket, verbose=0, check_correctness=True, **FAST)
    results = runner.measure([auto_scheduler.MeasureInput(task, s) for s in states])
    assert [int(r.error_no) for r in results] == [0] * len(states), [str(r.error_msg) for r in results]


def test_a_task_file_of_tvm_states_is_what_the_worker_measures_on_its_own(tmp_path):
    """write_task_file writes MeasureInputs of a workload only TVM knows as a task file, its
    DAG inline in the archive's JSON form (version 2: dense's weight is layout-free), with the
    task's key, target, layout rewrite and hardware; measurerd-worker --once measures every
    state of it with the reference check, in order, without an error."""
    a = te.placeholder((16, 64), name="a")
    w = te.placeholder((32, 64), name="w")
    tensors = [a, w, topi.sigmoid(topi.nn.dense(a, w))]
    task = inline_task(tensors, layout_rewrite_option=1, hardware_params=ONE_CORE)
    policy = auto_scheduler.SketchPolicy(task, verbose=0, seed=7)
    states = [task.compute_dag.get_init_state()] + list(policy.sample_initial_population())[:4]
    inputs = [auto_scheduler.MeasureInput(task, s) for s in states]
    path = tmp_path / "states.json"
    measurerd.tvm.write_task_file(str(path), inputs, check_correctness=True, **FAST)
    written = json.loads(path.read_text())
    assert written["workload"]["key"] == task.workload_key
    assert written["workload"]["dag"]["version"] == 2
    assert (written["target"], written["layout_rewrite_option"]) == (str(task.target).strip(), 1)
    assert written["hardware"]["num_cores"] == 1
    assert written["states"][0] == [] and len(written["states"]) == len(inputs)
    out = subprocess.run([build_path("daemon/measurerd-worker"), "--once", str(path),
                          "--cache-dir", str(tmp_path / "cache"), "--fail-on-error"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(r["index"], r["error_no"]) for r in lines] == [(i, 0) for i in range(len(inputs))], \
        [r["error_msg"] for r in lines]
    # Without layout-free inputs the archive is version 1, and its computes have no such field.
    plain = measurerd.tvm.dag.dag_json([a, topi.sigmoid(topi.add(a, a))])
    assert plain["version"] == 1
    assert all("layout_free" not in n for n in plain["nodes"])
    # One task per file.
    other = auto_scheduler.MeasureInput(matmul_task(), matmul_task().compute_dag.get_init_state())
    with pytest.raises(ValueError, match="one task"):
        measurerd.tvm.task_file(inputs[:1] + [other])


def test_a_global_pool_goes_inline_with_its_extents_folded(daemon):
    """topi's global (adaptive) pool writes its reduction extents as index differences that
    TVM's simplifier folds to constants; they go inline as those constants."""
    d = te.placeholder((1, 8, 7, 7), name="data")
    tensors = [d, topi.nn.global_pool(d, "avg")]
    task = inline_task(tensors)
    runner = measurerd.tvm.Runner(daemon.socket, verbose=0, check_correctness=True, **FAST)
    (r,) = runner.measure([auto_scheduler.MeasureInput(task, task.compute_dag.get_init_state())])
    assert int(r.error_no) == 0, str(r.error_msg)


def test_gelu_and_rounding_go_inline_and_compute_what_the_workload_computes(daemon):
    """topi's erf (BERT's gelu), rsqrt, floor, ceil, trunc and round go inline as themselves,
    and TVM's sampled states of them, erf and rsqrt scalarized in vector loops as TVM does,
    compute what the reference interpreter computes."""
    a = te.placeholder((16, 64), name="a")
    w = te.placeholder((32, 64), name="w")
    d = topi.nn.dense(a, w)
    gelu = topi.multiply(topi.multiply(d, 0.5), topi.add(topi.erf(topi.multiply(d, 0.7071)), 1.0))
    x = te.placeholder((32, 48), name="x")
    rounding = te.compute((32, 48), lambda i, j: tvm.tir.round(x[i, j] * 2.5) + tvm.tir.floor(x[i, j])
                          - tvm.tir.ceil(x[i, j]) * tvm.tir.trunc(x[i, j] * 0.5)
                          + tvm.tir.rsqrt(tvm.tir.abs(x[i, j]) + 1.0), name="rounding")
    runner = measurerd.tvm.Runner(daemon.socket, verbose=0, check_correctness=True, **FAST)
    for tensors in ([a, w, gelu], [x, rounding]):
        assert_sampled_states_compute(runner, tensors, seed=11)


def test_trigonometry_logarithms_and_isnan_go_inline_and_compute_what_the_workload_computes(daemon):
    """sin, cos, exp2, log2, log10 (vector calls in TVM's llvm build) and isnan (scalarized in
    vector loops, as TVM does) go inline as themselves, and TVM's sampled states of them
    compute what the reference interpreter computes, NaNs included."""
    x = te.placeholder((32, 48), name="x")

    def math(i, j):
        v, positive = x[i, j], tvm.tir.abs(x[i, j]) + 1.0
        return (tvm.tir.sin(v) + tvm.tir.cos(v) * 2.0 + tvm.tir.exp2(v) + tvm.tir.log2(positive)
                + tvm.tir.log10(positive))
    trig = te.compute((32, 48), math, name="trig")
    logs = topi.log(topi.subtract(x, 5.5))  # the inputs are in [1, 10): NaN below 5.5
    cleaned = te.compute((32, 48), lambda i, j: tvm.tir.Select(
        tvm.tir.isnan(logs[i, j]), tvm.tir.const(-1.0, "float32"), logs[i, j]), name="cleaned")
    runner = measurerd.tvm.Runner(daemon.socket, verbose=0, check_correctness=True, **FAST)
    for tensors in ([x, trig], [x, cleaned]):
        assert_sampled_states_compute(runner, tensors, seed=17)


def test_int8_and_uint8_workloads_go_inline_and_compute_what_the_workload_computes(daemon):
    """A quantized dense (uint8 x int8, int32 accumulation, requantized to int8) and a uint8
    max pool go inline with their 8-bit types, and TVM's sampled states of them compute what
    the reference interpreter computes."""
    x = te.placeholder((16, 64), name="x", dtype="uint8")
    w = te.placeholder((32, 64), name="w", dtype="int8")
    acc = topi.nn.dense(x, w, out_dtype="int32")
    scaled = topi.round(topi.multiply(topi.cast(acc, "float32"), 0.05))
    requant = topi.cast(topi.clip(scaled, -128.0, 127.0), "int8")
    image = te.placeholder((1, 8, 12, 12), name="image", dtype="uint8")
    pool = topi.nn.pool2d(image, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "max")
    runner = measurerd.tvm.Runner(daemon.socket, verbose=0, check_correctness=True, **FAST)
    for tensors in ([x, w, requant], [image, pool]):
        assert_sampled_states_compute(runner, tensors, seed=13)


def test_integer_workloads_with_truncmod_bitwise_calls_and_shifts_go_inline_and_compute(daemon):
    """topi's mod (truncmod), bitwise and/or/xor/not and shifts on int16, uint16, int32 and
    uint32 tensors, and a float truncmod, go inline as themselves, and TVM's sampled states of
    them compute what the reference interpreter computes."""
    a = te.placeholder((24, 40), name="a", dtype="int32")
    b = te.placeholder((24, 40), name="b", dtype="int32")
    negative = topi.subtract(3, topi.multiply(a, 7))  # -60..-4
    mixed = topi.add(topi.add(topi.mod(negative, b), topi.bitwise_and(a, b)),
                     topi.add(topi.bitwise_xor(topi.bitwise_or(a, 8), b), topi.bitwise_not(b)))
    shifted = topi.add(topi.right_shift(topi.multiply(negative, 100), b), topi.left_shift(a, b))
    h = te.placeholder((24, 40), name="h", dtype="int16")
    u = te.placeholder((24, 40), name="u", dtype="uint16")
    narrow = te.compute((24, 40), lambda i, j: tvm.tir.shift_right(
        h[i, j] * tvm.tir.const(5000, "int16"), tvm.tir.const(2, "int16")) + u[i, j], name="narrow")
    w = te.placeholder((24, 40), name="w", dtype="uint32")
    big = topi.multiply(w, tvm.tir.const(1 << 28, "uint32"))  # past 2^31, without wrapping
    unsigned = topi.add(topi.right_shift(big, tvm.tir.const(3, "uint32")), topi.mod(big, tvm.tir.const(1000, "uint32")))
    f = te.placeholder((24, 40), name="f")
    fmod = topi.mod(topi.multiply(f, -1.7), 2.5)
    runner = measurerd.tvm.Runner(daemon.socket, verbose=0, check_correctness=True, **FAST)
    for tensors in ([a, b, mixed], [a, b, shifted], [h, u, narrow], [w, unsigned], [f, fmod]):
        assert_sampled_states_compute(runner, tensors, seed=11)


def test_qnn_requantize_goes_inline_as_the_arithmetic_of_tvms_own_lowering_rule(daemon):
    """QNN's requantize as relay lowers it for TVM's build: a fixed-point multiply by a constant
    (topi.fixed_point_multiply, tir.q_multiply_shift; its power-of-two form too) and per output
    channel (fixed_point_multiply_per_axis) go inline as the int64 arithmetic TVM's own
    legalization rule makes of them, and TVM's sampled states of requantized int8 dense layers
    compute what the reference interpreter computes. One TVM cannot lower (a multiplier that is
    not a constant) is refused, naming the call."""
    x = te.placeholder((16, 64), name="x", dtype="uint8")
    w = te.placeholder((32, 64), name="w", dtype="int8")
    acc = topi.nn.dense(x, w, out_dtype="int32")

    def to_int8(t):
        return topi.cast(topi.clip(topi.add(t, 3), -128, 127), "int8")
    per_tensor = to_int8(topi.fixed_point_multiply(acc, 1395864371, -6))
    power_of_two = to_int8(topi.add(topi.fixed_point_multiply(acc, 1 << 30, -4),
                                    topi.fixed_point_multiply(acc, 1 << 30, 3)))
    m, lshift, rshift = (te.placeholder((32,), name=n, dtype="int32") for n in ("m", "l", "r"))
    per_channel = to_int8(topi.math.fixed_point_multiply_per_axis(acc, m, lshift, rshift, 1, 1, [1]))
    runner = measurerd.tvm.Runner(daemon.socket, verbose=0, check_correctness=True, **FAST)
    for tensors in ([x, w, per_tensor], [x, w, power_of_two], [x, w, m, lshift, rshift, per_channel]):
        assert_sampled_states_compute(runner, tensors, seed=19)

    j = te.reduce_axis((0, 32), name="j")
    variable = te.compute((16,), lambda i: te.sum(tvm.tir.q_multiply_shift(
        acc[i, j], m[j], tvm.tir.const(31, "int32"), tvm.tir.const(-2, "int32")), axis=j), name="variable")
    with pytest.raises(measurerd.tvm.UnsupportedWorkload, match="q_multiply_shift.*lowering rule"):
        runner.check_task(inline_task([x, w, m, variable]))


def test_a_product_goes_inline_and_a_reducer_from_another_identity_is_refused(daemon):
    """topi's prod reduces as itself, in TVM's sampled states too; a reducer measurerd would
    start from the wrong value (a sum from 1) is refused, naming it."""
    x = te.placeholder((16, 12), name="x")
    product = topi.prod(topi.add(topi.multiply(x, 0.25), 0.5), axis=1)
    runner = measurerd.tvm.Runner(daemon.socket, verbose=0, check_correctness=True, **FAST)
    assert_sampled_states_compute(runner, [x, product], seed=3)

    sum_from_one = te.comm_reducer(lambda a, b: a + b, lambda t: tvm.tir.const(1, t))
    k = te.reduce_axis((0, 12), name="k")
    odd = te.compute((16,), lambda i: sum_from_one(x[i, k], axis=k), name="odd")
    with pytest.raises(measurerd.tvm.UnsupportedWorkload, match="reducer.*from their identities"):
        runner.check_task(inline_task([x, odd]))


def test_tune_a_tvm_only_workload_inline(daemon, tmp_path):
    """A conv2d + relu known to TVM only (registered from its tensors): tuned through measurerd
    as an inline DAG, its best record built by TVM computes what the default schedule does."""
    d = te.placeholder((1, 4, 10, 10), name="data")
    w = te.placeholder((8, 4, 3, 3), name="kernel")
    tensors = [d, w, topi.nn.relu(topi.nn.conv2d_nchw(d, w, 1, 1, 1))]
    task = inline_task(tensors, hardware_params=ONE_CORE)
    log = str(tmp_path / "conv.log")
    task.tune(auto_scheduler.TuningOptions(
        num_measure_trials=16, num_measures_per_round=16, builder=measurerd.tvm.Builder(),
        runner=measurerd.tvm.Runner(daemon.socket, verbose=0, **FAST),
        measure_callbacks=[auto_scheduler.RecordToFile(log)], verbose=0))
    pairs = list(auto_scheduler.load_records(log))
    assert len(pairs) == 16
    assert [int(r.error_no) for _, r in pairs] == [0] * 16

    data = np.random.uniform(size=(1, 4, 10, 10)).astype("float32")
    kernel = np.random.uniform(size=(8, 4, 3, 3)).astype("float32")
    outs = []
    for sch, args in (task.apply_best(log), task.compute_dag.apply_steps_from_state(
            task.compute_dag.get_init_state())):
        out = tvm.nd.empty((1, 8, 10, 10), "float32")
        tvm.build(sch, args, TARGET)(tvm.nd.array(data), tvm.nd.array(kernel), out)
        outs.append(out.numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-4)


def test_a_workload_measurerd_cannot_take_is_a_clear_error(daemon):
    task = auto_scheduler.SearchTask(func="tvm_only_matmul", args=(16,), target=TARGET)
    no_inline = measurerd.tvm.Runner(daemon.socket, verbose=0, inline=False)
    with pytest.raises(measurerd.tvm.UnsupportedWorkload, match='"tvm_only_matmul"') as e:
        no_inline.measure([auto_scheduler.MeasureInput(task, task.compute_dag.get_init_state())])
    assert "matmul" in str(e.value) and '["tvm_only_matmul", 16]' in str(e.value)

    popcount = auto_scheduler.SearchTask(func="tvm_popcount", args=(16,), target=TARGET)
    with pytest.raises(measurerd.tvm.UnsupportedWorkload, match="tvm_popcount.*popcount"):
        measurerd.tvm.Runner(daemon.socket, verbose=0).check_task(popcount)

    half = te.placeholder((8, 8), name="half", dtype="float16")
    fp16 = inline_task([half, topi.nn.relu(half)])
    with pytest.raises(measurerd.tvm.UnsupportedWorkload, match="type float16; measurerd's types"):
        measurerd.tvm.Runner(daemon.socket, verbose=0).check_task(fp16)


def test_tuning_a_workload_measurerd_cannot_take_stops_with_that_error(daemon):
    task = auto_scheduler.SearchTask(func="tvm_popcount", args=(8,), target=TARGET)
    options = auto_scheduler.TuningOptions(
        num_measure_trials=2, num_measures_per_round=2, builder=measurerd.tvm.Builder(),
        runner=measurerd.tvm.Runner(daemon.socket, verbose=0), verbose=0)
    with pytest.raises(measurerd.tvm.UnsupportedWorkload, match="tvm_popcount"):
        task.tune(options, search_policy=auto_scheduler.EmptyPolicy(task))


def test_a_daemon_that_went_away_stops_the_runner_with_daemon_gone(own_daemon):
    runner = measurerd.tvm.Runner(own_daemon.socket, verbose=0, **FAST)
    task = matmul_task(16)
    inputs = [auto_scheduler.MeasureInput(task, task.compute_dag.get_init_state())]
    assert int(runner.measure(inputs)[0].error_no) == 0
    own_daemon.terminate()
    with pytest.raises(measurerd.DaemonGone):
        runner.measure(inputs)


def test_a_gpu_target_is_a_clear_error(daemon):
    runner = measurerd.tvm.Runner(daemon.socket, verbose=0)
    task = auto_scheduler.SearchTask(
        func="matmul", args=(16, 16, 16, "float32"), target="cuda",
        hardware_params=auto_scheduler.HardwareParams(1, 64, 64, 1024, 48 * 1024, 32, 1024, 32))
    with pytest.raises(measurerd.tvm.UnsupportedTarget, match="host CPU"):
        runner.check_task(task)


def test_measurement_failures_come_back_with_tvms_error_numbers(daemon):
    runner = measurerd.tvm.Runner(daemon.socket, verbose=0, **FAST)
    task = matmul_task(16)
    good = auto_scheduler.MeasureInput(task, task.compute_dag.get_init_state())
    (r,) = runner.measure([good])
    assert int(r.error_no) == 0
    # A state whose steps measurerd refuses: an instantiation error, cost MAX_FLOAT, as TVM.
    line = auto_scheduler.measure_record.dump_record_to_string(good, r)
    rec = json.loads(line)
    rec["i"][1][1] = [["SP", 9, 0, 16, [2], 1]]  # there is no stage 9
    bad, _ = auto_scheduler.measure_record.load_record_from_string(json.dumps(rec))
    (e,) = runner.measure([auto_scheduler.MeasureInput(task, bad.state)])
    assert int(e.error_no) == int(auto_scheduler.measure.MeasureErrorNo.INSTANTIATION_ERROR)
    assert [float(c) for c in e.costs] == [auto_scheduler.measure.MAX_FLOAT]


def test_tuning_options_pairs_the_builder_and_runner(daemon, tmp_path):
    opts = measurerd.tvm.tuning_options(4, log_file=str(tmp_path / "x.log"),
                                        socket=daemon.socket, runner_options={"verbose": 0},
                                        num_measures_per_round=4)
    assert isinstance(opts, auto_scheduler.TuningOptions)
    assert opts.num_measure_trials == 4 and len(opts.measure_callbacks) == 1


def test_meta_schedule_is_refused_saying_why():
    for cls in (measurerd.tvm.meta_schedule.Builder, measurerd.tvm.meta_schedule.Runner):
        with pytest.raises(MetaScheduleNotSupported, match="auto_scheduler"):
            cls()
    assert issubclass(MetaScheduleNotSupported, NotImplementedError)


def test_a_relay_networks_tasks_measure_with_their_weights_pre_transformed(daemon):
    """auto_scheduler.extract_tasks gives a network's tasks layout_rewrite_option 2 (TVM
    re-lays the weights out once, before the network runs): measurerd passes each candidate its
    layout-free weights in the layout that candidate's schedule gives them, and TVM's sampled
    states of a conv2d and a dense, so fed, compute what the workloads compute."""
    from tvm import relay
    data = relay.var("data", shape=(1, 14, 14, 16))
    weight = relay.var("weight", shape=(3, 3, 16, 32))
    conv = relay.nn.relu(relay.nn.conv2d(data, weight, padding=(1, 1), channels=32, kernel_size=(3, 3),
                                         data_layout="NHWC", kernel_layout="HWIO"))
    flat = relay.reshape(relay.nn.global_avg_pool2d(conv, layout="NHWC"), (1, 32))
    dense_w = relay.var("dense_w", shape=(10, 32))
    net = relay.Function([data, weight, dense_w], relay.nn.dense(flat, dense_w))
    rng = np.random.default_rng(3)
    params = {"weight": rng.standard_normal((3, 3, 16, 32)).astype("float32"),
              "dense_w": rng.standard_normal((10, 32)).astype("float32")}
    tasks, _ = auto_scheduler.extract_tasks(tvm.IRModule.from_expr(net), params, TARGET,
                                            hardware_params=ONE_CORE)
    rewritten = [t for t in tasks if int(t.layout_rewrite_option) == 2
                 and ("conv2d" in t.desc or "dense" in t.desc)]
    assert len(rewritten) >= 2, [(t.desc, int(t.layout_rewrite_option)) for t in tasks]
    runner = measurerd.tvm.Runner(daemon.socket, verbose=0, check_correctness=True, **FAST)
    for task in rewritten:
        policy = auto_scheduler.SketchPolicy(task, verbose=0, seed=2)
        states = [task.compute_dag.get_init_state()] + list(policy.sample_initial_population())[:5]
        results = runner.measure([auto_scheduler.MeasureInput(task, s) for s in states])
        assert [int(r.error_no) for r in results] == [0] * len(states), \
            (task.desc, [str(r.error_msg) for r in results])

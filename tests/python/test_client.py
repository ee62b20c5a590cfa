"""The Python client against a real measurerd (no TVM needed): measuring, status, workloads,
cancel, refused requests and peers, a daemon that goes away, and records that TVM and the
measurer CLI read."""

import json
import os
import subprocess
import threading

import pytest

import measurerd
from measurerd import records
from conftest import build_path

QUICK = measurerd.MeasureOptions(number=1, repeat=1, min_repeat_ms=0)
MATMUL_64 = ["matmul", 64, 64, 64, "float32"]
TILED = [["SP", 2, 0, 64, [16, 2, 2], 1], ["AN", 2, 0, 3]]


def split_states(n: int, count: int):
    """`count` distinct states of matmul n: i and j split by different factors."""
    factors = [f for f in range(1, n) if n % f == 0]
    out = [[["SP", 2, 0, n, [a], 1], ["SP", 2, 2, n, [b], 1]] for a in factors for b in factors]
    assert len(out) >= count
    return out[:count]


def test_welcome_and_status(client):
    w = client.welcome
    assert w.version == 1 and w.workers == 1 and w.max_states > 0 and w.max_body > 0
    s = client.status()
    assert s.workers == 1
    assert s.workers_alive == 1
    assert len(s.worker_list) == 1 and s.worker_list[0].pid > 0
    assert s.clients >= 1
    assert s.degraded == ""  # the whole pool runs


def test_measure_small_matmul_streams_results_in_order(client):
    seen = []
    results = client.measure(MATMUL_64, [[], TILED, json.dumps(TILED)], QUICK,
                             on_result=lambda i, r: seen.append((i, r)))
    assert [i for i, _ in seen] == [0, 1, 2]
    assert [r for _, r in seen] == results
    for r in results:
        assert r.ok, (r.error_name, r.error_msg)
        assert len(r.costs) == 1 and 0 < r.costs[0] < 1
        assert r.all_cost > 0 and r.timestamp > 1e9
    assert results[2].cache_hit  # the same steps as state 1
    assert client.last_request_done.count == 3 and client.last_request_done.errors == 0


def test_measure_takes_a_task_key_and_tvm_state_form(client):
    task = measurerd.Task(measurerd.FunctionWorkload("matmul", [32, 32, 32, "float32"]),
                          target="llvm -keys=cpu -mcpu=x86-64",
                          hardware=measurerd.HardwareParams(num_cores=1))
    (a,) = client.measure(task, [[[], TILED[:0]]], {"number": 1, "min_repeat_ms": 0})
    (b,) = client.measure('["matmul", 32, 32, 32, "float32"]', ["[]"], QUICK)
    assert a.ok and b.ok


def _matmul_archive(dense: bool) -> bytes:
    """C = A * B (32x16 by 16x24) as a DAG archive; with `dense`, topi's dense C = A * W^T
    whose weight W (24x16) is layout-free."""
    from measurerd.dag import DagWriter
    w = DagWriter()
    a = w.placeholder("A", "float32", [32, 16])
    b = w.placeholder("W" if dense else "B", "float32", [24, 16] if dense else [16, 24])
    i, j, k = w.var("i", "int32"), w.var("j", "int32"), w.var("k", "int32")
    prod = w.binary("float32", "*", w.tensor_read("float32", a, [i, k]),
                    w.tensor_read("float32", b, [j, k] if dense else [k, j]))
    c = w.compute("C", "dense" if dense else "", "float32", [(i, 0, 32), (j, 0, 24)],
                  w.reduce("float32", "sum", [(k, 0, 16)], [prod]), layout_free=[b] if dense else [])
    return w.archive([a, b, c])


def test_a_tensor_workload_goes_inline_as_a_dag_archive(client):
    archive = _matmul_archive(dense=False)
    assert archive[6] == 1  # format version 1: no layout-free input
    task = measurerd.Task(measurerd.TensorWorkload('["inline-matmul"]', archive))
    ok, tiled, broken = client.measure(task, [[], [["SP", 2, 0, 32, [4], 1]],
                                              [["SP", 2, 0, 32, [4], 1]]],
                                       dict(number=1, min_repeat_ms=0, check_correctness=True))
    assert ok.ok and tiled.ok, (ok.error_msg, tiled.error_msg)

    archive = _matmul_archive(dense=True)
    assert archive[6] == 2  # version 2: the weight is layout-free
    dense = measurerd.Task(measurerd.TensorWorkload('["inline-dense"]', archive))
    (r,) = client.measure(dense, [[["SP", 2, 0, 32, [4], 1]]], dict(number=1, min_repeat_ms=0, check_correctness=True))
    assert r.ok, r.error_msg
    bad = measurerd.Task(measurerd.TensorWorkload("k", b"MRDDAG\x07\x00"))
    (r,) = client.measure(bad, [[]], QUICK)
    assert r.error_no == measurerd.MeasureErrorNo.INSTANTIATION_ERROR and "BadVersion" in r.error_msg


def test_workloads_lists_the_daemons_function_workloads(client):
    names = client.workloads()
    assert "matmul" in names and "conv2d_nchw" in names
    assert names == sorted(names)


def test_measure_failures_are_results_not_exceptions(client):
    unknown, bad_step, bad_args = (
        client.measure(["no_such_workload", 1], [[]], QUICK)[0],
        client.measure(MATMUL_64, [[["SP", 9, 0, 64, [2], 1]]], QUICK)[0],
        client.measure(["matmul", 64, 64, "float32"], [[]], QUICK)[0])
    for r in (unknown, bad_step, bad_args):
        assert r.error_no == measurerd.MeasureErrorNo.INSTANTIATION_ERROR, r
        assert r.mean_cost is None
    assert "known functions" in unknown.error_msg and "matmul" in unknown.error_msg


def test_a_refused_request_is_a_typed_error_and_the_connection_goes_on(client):
    with pytest.raises(measurerd.RequestRefused) as e:
        client.measure(MATMUL_64, [[]], {"number": 0})
    assert e.value.code == measurerd.ErrorCode.INVALID_REQUEST
    assert e.value.code_name == "INVALID_REQUEST"
    assert "number" in str(e.value)
    with pytest.raises(ValueError, match="numbr"):
        client.measure(MATMUL_64, [[]], {"numbr": 3})  # refused here, nothing sent
    assert client.measure(MATMUL_64, [[]], QUICK)[0].ok
    assert client.status().workers == 1


def test_bytes_that_are_not_the_protocol_get_a_typed_error_and_a_close(daemon):
    c = measurerd.Client(daemon.socket)
    c.send_bytes(b"JUNK" + bytes(8))
    with pytest.raises(measurerd.ServerError) as e:
        c.status()
    assert e.value.code == measurerd.ErrorCode.BAD_MAGIC
    with pytest.raises(measurerd.DaemonGone):
        c.status()


def test_cancel_from_the_result_callback(client):
    states = split_states(64, 30)
    seen = []

    def on_result(i, r):
        seen.append(i)
        if i == 0:
            assert client.cancel()

    results = client.measure(MATMUL_64, states, QUICK, on_result=on_result)
    assert seen == list(range(len(states)))
    assert client.cancelled
    assert results[0].ok
    cancelled = [r for r in results if r.cancelled]
    assert cancelled, "nothing was cancelled"
    assert results[-1].cancelled
    first = next(i for i, r in enumerate(results) if r.cancelled)
    assert all(r.cancelled for r in results[first:])  # started inputs finish, in order
    # The connection goes on, and a later measure is not cancelled.
    assert not client.cancel()
    assert client.measure(MATMUL_64, [[]], QUICK)[0].ok
    assert not client.cancelled


def test_cancel_from_another_thread(client):
    states = split_states(32, 25)
    first = threading.Event()

    def canceller():
        first.wait(120)
        client.cancel()

    t = threading.Thread(target=canceller)
    t.start()
    results = client.measure(["matmul", 32, 32, 32, "float32"], states, QUICK,
                             on_result=lambda i, r: first.set())
    t.join()
    assert len(results) == len(states) and all(r is not None for r in results)
    assert any(r.cancelled for r in results)


def test_ctrl_c_cancels_waits_for_the_started_inputs_and_reraises(client):
    states = split_states(48, 20)
    seen = []

    def on_result(i, r):
        seen.append(i)
        if i == 0:
            raise KeyboardInterrupt  # as a Ctrl-C arriving while measure() waits

    with pytest.raises(KeyboardInterrupt):
        client.measure(["matmul", 48, 48, 48, "float32"], states, QUICK, on_result=on_result)
    assert client.cancelled
    assert client.status().requests == 0  # drained: the request is done, the connection usable
    assert client.measure(MATMUL_64, [[]], QUICK)[0].ok


def test_a_daemon_that_stops_raises_daemon_gone(own_daemon):
    c = measurerd.Client(own_daemon.socket)
    assert c.status().workers == 1
    assert own_daemon.terminate() == 0
    with pytest.raises(measurerd.DaemonGone):
        c.status()
    with pytest.raises(measurerd.ConnectError) as e:
        measurerd.Client(own_daemon.socket)
    assert own_daemon.socket in str(e.value)


def test_a_daemon_killed_mid_request_raises_daemon_gone(own_daemon):
    c = measurerd.Client(own_daemon.socket)
    got = []

    def on_result(i, r):
        got.append(i)
        if i == 0:
            own_daemon.kill()

    with pytest.raises(measurerd.DaemonGone):
        c.measure(MATMUL_64, split_states(64, 20), QUICK, on_result=on_result)
    assert got[0] == 0 and len(got) < 20  # results already sent may still be read


def test_no_daemon_at_the_socket_is_a_connect_error(tmp_path):
    with pytest.raises(measurerd.ConnectError, match="cannot connect") as e:
        measurerd.Client(str(tmp_path / "none.sock"))
    # With what to do about it, as measurer says.
    assert "systemctl start measurerd.socket" in str(e.value)
    assert "MEASURERD_SOCKET" in str(e.value)


def _connect_as_nobody(socket_path):
    """In a child process as uid/gid 65534: 'refused <message>', 'connected' or 'other ...'."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            try:
                measurerd.Client(socket_path).close()
                out = "connected"
            except measurerd.PeerNotAllowed as e:
                out = "refused %d %s" % (e.code, e)
            except Exception as e:  # reported to the parent, which fails the test
                out = "other %s: %s" % (type(e).__name__, e)
            os.write(w, out.encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        out = f.read()
    os.waitpid(pid, 0)
    return out


def test_a_refused_peer_gets_peer_not_allowed(daemon):
    if os.geteuid() != 0:
        pytest.skip("playing another user needs root; this test runs as uid %d" % os.geteuid())
    parent = os.path.dirname(daemon.dir)
    if not os.stat(parent).st_mode & 0o001:
        pytest.skip("other users cannot reach %s (%s is not searchable by them)"
                    % (daemon.socket, parent))
    os.chmod(daemon.dir, 0o711)
    os.chmod(daemon.socket, 0o666)
    try:
        out = _connect_as_nobody(daemon.socket)
    finally:
        os.chmod(daemon.dir, 0o700)
    assert out.startswith("refused %d " % measurerd.ErrorCode.PEER_NOT_ALLOWED), out
    assert "PEER_NOT_ALLOWED" in out and "uid 65534" in out
    with measurerd.Client(daemon.socket) as c:  # others are still served
        assert c.status().workers == 1


def test_records_written_here_are_read_by_measurer_and_back(client, tmp_path):
    task = measurerd.Task(measurerd.FunctionWorkload("matmul", [64, 64, 64, "float32"]),
                          hardware=measurerd.HardwareParams(num_cores=1))
    states = [[], TILED]
    results = client.measure(task, states, QUICK)
    log = str(tmp_path / "py.log")
    records.append_records(log, [records.make_record(task, s, r)
                                 for s, r in zip(states, results)])
    back = records.read_records(log)
    assert [r.steps for r in back] == states
    assert back[0].workload_key == '["matmul", 64, 64, 64, "float32"]'
    assert all(r.ok for r in back)
    # The measurer CLI reads the log written here.
    out = subprocess.run([build_path("client/measurer"), "best", log, "--json"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "matmul" in out.stdout


def test_measure_logs_what_measurer_submit_would(client, tmp_path):
    log = tmp_path / "m.log"
    states = split_states(64, 12)
    client.measure(MATMUL_64, states, QUICK, log=str(log),
                   on_result=lambda i, r: i == 0 and client.cancel())
    recs = records.read_records(str(log))
    assert 1 <= len(recs) < len(states)  # cancelled states are not logged
    assert [r.steps for r in recs] == states[:len(recs)]
    assert recs[0].hardware.num_cores == client.welcome.cores  # num_cores 0: the daemon's


def test_records_written_by_measurer_read_here_byte_for_byte(daemon, tmp_path):
    task_file = tmp_path / "task.json"
    task_file.write_text(json.dumps({
        "workload": {"function": "matmul", "args": [64, 64, 64, "float32"]},
        "options": {"number": 1, "min_repeat_ms": 0},
        "states": [[], TILED]}))
    log = tmp_path / "cli.log"
    out = subprocess.run([build_path("client/measurer"), "--socket", daemon.socket, "submit",
                          str(task_file), "--log", str(log), "-q"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = log.read_text().splitlines()
    recs = records.read_records(str(log))
    assert len(recs) == 2 and recs[1].steps == TILED
    assert [records.to_line(r) for r in recs] == lines
    assert recs[0].task().workload.name == "matmul"


def test_records_refuse_bad_lines_by_number(tmp_path):
    log = tmp_path / "bad.log"
    good = ('{"i": [["[\\"matmul\\", 8, 8, 8, \\"float32\\"]", "llvm", [1, 64, 64, 0, 0, 0, 0,'
            ' 0], "", 1, []], [[], []]], "r": [[1e-06], 0, 0.5, 1700000000], "v": "v0.6"}')
    log.write_text(good + "\n\n" + '{"i": []}' + "\n")
    with pytest.raises(records.RecordError, match="line 3"):
        records.read_records(str(log))
    (r,) = records.read_records([good])
    assert records.to_line(r) == good
    failed = records.Record(r.workload_key, r.target, r.hardware, [], [], 4, 0.25, 1.7e9)
    assert '"r": [[1e+10], 4, 0.25, 1700000000]' in records.to_line(failed)


def test_default_socket_path_follows_the_cli_rules(monkeypatch, tmp_path):
    from measurerd.client import SYSTEM_SOCKET
    monkeypatch.setenv("MEASURERD_SOCKET", "/x/y.sock")
    assert measurerd.default_socket_path() == "/x/y.sock"
    monkeypatch.delenv("MEASURERD_SOCKET")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    expected = SYSTEM_SOCKET if os.path.exists(SYSTEM_SOCKET) else str(tmp_path / "measurerd.sock")
    assert measurerd.default_socket_path() == expected


def test_the_package_installs_with_pip(tmp_path):
    """pip install client/python (from a copy: pip builds in the source tree), offline."""
    import shutil
    import sys
    from conftest import REPO
    src = tmp_path / "src"
    shutil.copytree(os.path.join(REPO, "client", "python"), src,
                    ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    target = tmp_path / "site"
    out = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                          "--no-build-isolation", "--no-index", "--target", str(target),
                          str(src)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    env = dict(os.environ, PYTHONPATH=str(target))
    probe = subprocess.run([sys.executable, "-c", "import measurerd, measurerd.records; "
                            "print(measurerd.__file__)"], capture_output=True, text=True,
                           env=env, cwd=str(tmp_path))
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.startswith(str(target))

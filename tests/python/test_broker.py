"""The Python broker client against a real redis-server (private Unix socket, no TCP port, no
persistence; READY=1 through --supervised systemd) and real measurerd nodes."""

import os
import shutil
import signal
import socket
import subprocess
import tempfile

import pytest

from conftest import READY_GUARD_SECONDS, Daemon

import measurerd
from measurerd.resp import Redis, RedisReplyError, parse_url

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None,
                                reason="redis-server is not installed (scripts/setup installs it)")


class RedisServer:
    def __init__(self):
        self.proc = None
        self.dir = tempfile.mkdtemp(prefix="measurerd-redis-")
        try:
            self._start()
        except BaseException:
            self.stop()  # a server that did not start leaves neither a process nor a directory
            raise

    def _start(self):
        self.sock = os.path.join(self.dir, "redis.sock")
        self.url = "unix://" + self.sock
        notify_path = os.path.join(self.dir, "notify.sock")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        notify.settimeout(READY_GUARD_SECONDS)
        self.proc = subprocess.Popen(
            ["redis-server", "--port", "0", "--unixsocket", self.sock, "--unixsocketperm", "700",
             "--save", "", "--appendonly", "no", "--supervised", "systemd", "--dir", self.dir,
             "--logfile", os.path.join(self.dir, "redis.log")],
            env=dict(os.environ, NOTIFY_SOCKET=notify_path))
        try:
            while b"READY=1" not in notify.recv(4096):
                pass
        finally:
            notify.close()
            os.unlink(notify_path)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=60)
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def redis_server():
    r = RedisServer()
    yield r
    r.stop()


def node(redis_server, name, key="py-key"):
    return Daemon(workers=1, extra=["--broker", redis_server.url, "--device-key", key,
                                    "--node-name", name, "--timing-policy", "shared",
                                    "--broker-claim-idle", "1"])


def test_resp_client_round_trips_binary_values(redis_server):
    r = Redis(parse_url(redis_server.url))
    value = bytes(range(256)) * 3
    assert r.command("SET", "k", value) == b"OK"
    assert r.command("GET", "k") == value
    assert r.command("GET", "missing") is None
    assert r.pipeline([["INCR", "n"], ["INCR", "n"]]) == [1, 2]
    with pytest.raises(RedisReplyError):
        r.command("NOSUCHCOMMAND")
    r.close()


def test_urls_and_password_files(tmp_path):
    e = parse_url("redis://alice:secret@h:6380/2")
    assert (e.host, e.port, e.db, e.user, e.password) == ("h", 6380, 2, "alice", "secret")
    assert "secret" not in e.text()
    pw = tmp_path / "pw"
    pw.write_text("measurer s3cret\n")
    e = parse_url("unix:///run/r.sock?db=1", str(pw))
    assert (e.unix_path, e.db, e.user, e.password) == ("/run/r.sock", 1, "measurer", "s3cret")
    for bad in ("http://x", "unix://rel", "redis://h/x"):
        with pytest.raises(ValueError):
            parse_url(bad)


def test_two_nodes_share_a_request_in_order_once(redis_server):
    a, b = node(redis_server, "py-a"), node(redis_server, "py-b")
    try:
        states = [[["SP", 2, 0, 16, [f], 1]] for f in (1, 2, 4, 8, 16)] * 2
        with measurerd.BrokerClient(redis_server.url, device_key="py-key") as c:
            seen = []
            results = c.measure(["matmul", 16, 16, 16, "float32"], states,
                                {"number": 1, "repeat": 1, "min_repeat_ms": 0},
                                on_result=lambda i, r, n: seen.append((i, n)))
            assert [i for i, _ in seen] == list(range(len(states)))
            assert all(r.ok for r in results)
            assert set(c.last_nodes) <= {"py-a", "py-b"}
            assert {n["name"] for n in c.nodes() if n["alive"]} == {"py-a", "py-b"}
    finally:
        a.stop()
        b.stop()


def test_no_live_node_is_refused_at_once(redis_server):
    with measurerd.BrokerClient(redis_server.url, device_key="nobody") as c:
        with pytest.raises(measurerd.ConnectError, match="no live node"):
            c.measure(["matmul", 16, 16, 16, "float32"], [[]])

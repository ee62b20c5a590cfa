"""Measuring on the nodes of a Redis broker (proto-docs/broker.md) instead of one measurerd.

    import measurerd
    with measurerd.BrokerClient("redis://broker:6379") as c:
        results = c.measure(["matmul", 64, 64, 64, "float32"], [[], [["SP", 2, 0, 64, [8], 1]]])
        print([(r.mean_cost, node) for r, node in zip(results, c.last_nodes)])

The task bytes go once to mrd:task:<sha256>, each state as a job entry on mrd:jobs:<device-key>,
at most `window` unanswered at a time (fair sharing between requesters); results come back on
this client's own result stream, in state order, exactly once per state. A lost broker is
reconnected for `reconnect_timeout` seconds; a restarted one (its run_id changed) gets the task
and the unanswered jobs again. Standard library only."""

import hashlib
import os
import re
import secrets
import time
from typing import Callable, List, Optional

from . import wire
from .client import CANCELLED_MESSAGE, as_options
from .errors import ConnectError, DaemonGone, ProtocolError
from .resp import Endpoint, Redis, RedisReplyError, parse_url
from .task import HardwareParams, as_task, state_text, task_to_binary
from .wire import BodyReader, BodyWriter, MeasureErrorNo, MeasureResult

GROUP = "nodes"
_NAME = re.compile(r"^[A-Za-z0-9._-]{1,128}$")


def _cpuinfo(field: str) -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(field) and ":" in line:
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def local_device_key() -> str:
    """This machine's device key, as measurerd computes it: CPU model, cores, ISA flags."""
    model = _cpuinfo("model name")
    flags = _cpuinfo("flags") or _cpuinfo("Features")
    slug = re.sub(r"-+", "-", re.sub(r"[^a-z0-9.]", "-", model.lower())).strip("-")[:80]
    slug = slug.rstrip("-") or "unknown-cpu"
    cores = os.cpu_count() or 1
    return "%s-%dc-%s" % (slug, cores, hashlib.md5(flags.encode()).hexdigest()[:8])


def _fields(flat) -> dict:
    if not isinstance(flat, list):
        return {}
    return {flat[i]: flat[i + 1] for i in range(0, len(flat) - 1, 2)}


class BrokerClient:
    def __init__(self, url: str, device_key: Optional[str] = None, window: int = 32,
                 password_file: Optional[str] = None, reconnect_timeout: float = 60.0):
        try:
            self.endpoint: Endpoint = parse_url(url, password_file)
        except (ValueError, OSError) as e:
            raise ConnectError(str(e)) from None
        self.device_key = device_key or local_device_key()
        if not _NAME.match(self.device_key):
            raise ConnectError("device key %r is not 1 to 128 characters of A-Z a-z 0-9 . _ -"
                               % self.device_key)
        self.window = max(1, int(window))
        self.reconnect_timeout = reconnect_timeout
        self.requester = secrets.token_hex(8)
        self.last_nodes: List[str] = []  # the node of each result of the last measure()
        self._redis: Optional[Redis] = Redis(self.endpoint)
        self._run_id = self._server_run_id()
        self._last_id = b"0-0"
        self._serial = 1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        if self._redis:
            self._redis.close()
            self._redis = None

    def _server_run_id(self) -> bytes:
        info = self._redis.command("INFO", "server")
        m = re.search(rb"run_id:(\w+)", info or b"")
        return m.group(1) if m else b""

    def _reconnect(self) -> None:
        self.close()
        deadline = time.monotonic() + self.reconnect_timeout
        delay = 0.05
        while True:
            try:
                self._redis = Redis(self.endpoint)
                self._run_id, before = self._server_run_id(), self._run_id
                self._restarted = self._run_id != before
                return
            except (ConnectError, DaemonGone) as e:
                if time.monotonic() + delay > deadline:
                    raise DaemonGone("%s (gave up after %d s)" % (e, self.reconnect_timeout)) from None
            time.sleep(delay)
            delay = min(delay * 2, 2.0)

    def nodes(self) -> List[dict]:
        """The nodes of the device key: name, host, alive, busy, workers, measured, last_seen."""
        out = []
        now = time.time()
        for name in sorted(self._redis.command("SMEMBERS", "mrd:nodes:" + self.device_key) or []):
            h = _fields(self._redis.command("HGETALL", b"mrd:node:%s:%s" % (
                self.device_key.encode(), name)))
            if not h:
                continue
            num = lambda k: float(h.get(k, b"0") or 0)  # noqa: E731
            out.append({"name": name.decode(), "host": h.get(b"host", b"").decode(),
                        "alive": now - num(b"last_seen") < 3 * max(num(b"heartbeat"), 0.1),
                        "busy": int(num(b"busy")), "workers": int(num(b"workers")),
                        "cores": int(num(b"cores")), "measured": int(num(b"measured")),
                        "last_seen": num(b"last_seen")})
        return out

    def measure(self, task_or_workload, states, options=None, target: Optional[str] = None,
                on_result: Optional[Callable[[int, MeasureResult, str], None]] = None,
                hardware: Optional[HardwareParams] = None) -> List[MeasureResult]:
        """Measures every state on the device key's nodes; returns the results in state order
        (their nodes in `last_nodes`). Arguments as Client.measure; `on_result(index, result,
        node)` sees each result in index order. Ctrl-C stops sending jobs: the states not sent
        come back cancelled, those sent are waited for, then KeyboardInterrupt is re-raised.
        Raises ConnectError when no node of the key is alive, DaemonGone when the broker stays
        away longer than reconnect_timeout."""
        task = as_task(task_or_workload, target, hardware)
        task_bytes = task_to_binary(task)
        texts = [state_text(s) for s in states]
        opts = as_options(options)
        n = len(texts)
        results: List[Optional[MeasureResult]] = [None] * n
        nodes: List[str] = [""] * n
        self.last_nodes = []
        if n == 0:
            return []
        if not any(node["alive"] for node in self.nodes()):
            raise ConnectError("no live node serves device key %s on the broker %s"
                               % (self.device_key, self.endpoint.text()))
        req = "%s:%d" % (self.requester, self._serial)
        self._serial += 1
        task_hash = hashlib.sha256(task_bytes).hexdigest()
        reply = "mrd:results:" + self.requester
        stream = "mrd:jobs:" + self.device_key
        waiting, unconfirmed = set(), set()
        next_send = next_emit = 0
        cancelled = interrupted = False
        need_task = True

        def job(i):
            w = BodyWriter().u64(0).string(b"").strings([texts[i]])
            wire._write_options(w, opts)
            return ["XADD", stream, "*", "v", "1", "req", req, "reply", reply, "index", str(i),
                    "task", task_hash, "body", w.bytes()]

        def send(indices):
            unconfirmed.update(indices)
            if indices:
                self._redis.pipeline([job(i) for i in indices])
            unconfirmed.difference_update(indices)
            waiting.update(indices)

        while next_emit < n:
            try:
                if self._redis is None:
                    self._reconnect()
                    again = set(unconfirmed)
                    if self._restarted:
                        again |= waiting
                        self._last_id = b"0-0"
                    need_task = True
                    unconfirmed.clear()
                    waiting.difference_update(again)
                    self._redis.command("SET", "mrd:task:" + task_hash, task_bytes, "EX", "86400")
                    need_task = False
                    send(sorted(again))
                if need_task:
                    self._redis.command("SET", "mrd:task:" + task_hash, task_bytes, "EX", "86400")
                    need_task = False
                if cancelled:
                    while next_send < n:
                        results[next_send] = MeasureResult(
                            error_no=MeasureErrorNo.UNKNOWN_ERROR, error_msg=CANCELLED_MESSAGE,
                            timestamp=time.time())
                        next_send += 1
                else:
                    batch = []
                    while next_send < n and len(waiting) + len(unconfirmed) + len(batch) < self.window:
                        batch.append(next_send)
                        next_send += 1
                    send(batch)
                while next_emit < n and results[next_emit] is not None:
                    if on_result:
                        on_result(next_emit, results[next_emit], nodes[next_emit])
                    next_emit += 1
                if next_emit == n:
                    break
                got = self._redis.command("XREAD", "COUNT", "256", "BLOCK", "250", "STREAMS",
                                          reply, self._last_id)
                for _, entries in got or []:
                    for entry_id, flat in entries:
                        self._last_id = entry_id
                        f = _fields(flat)
                        try:
                            if f.get(b"req", b"").decode() != req:
                                continue
                            index = int(f.get(b"index", b"-1"))
                            if index not in waiting and index not in unconfirmed:
                                continue
                            if index < 0 or index >= n or results[index] is not None:
                                continue
                            body = f.get(b"body", b"")
                            if len(body) > wire.MAX_BODY:
                                continue
                            m = BodyReader(body)
                            m.u64()
                            if m.u32() != index:
                                continue
                            results[index] = wire._read_result(m)
                            nodes[index] = f.get(b"node", b"").decode(errors="replace")
                            waiting.discard(index)
                            unconfirmed.discard(index)
                        except (ValueError, wire.DecodeError, ProtocolError):
                            continue
            except (DaemonGone, OSError):
                self.close()
            except RedisReplyError as e:
                raise DaemonGone("broker %s: %s" % (self.endpoint.text(), e)) from None
            except KeyboardInterrupt:
                if cancelled:
                    self.close()
                    raise
                cancelled = interrupted = True
        if self._redis is not None:
            try:
                self._redis.command("DEL", reply)
            except (DaemonGone, RedisReplyError):
                self.close()
        self.last_nodes = nodes
        if interrupted:
            raise KeyboardInterrupt
        return results

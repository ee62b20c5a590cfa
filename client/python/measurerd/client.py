"""A blocking client of measurerd over its Unix socket: connect (Hello/Welcome), measure a
batch with one callback per result in submission order, cancel the measurement in flight, ask
for the status and the workloads the daemon's workers know.

One request at a time per Client; only cancel() may be called from another thread (or from an
on_result callback) while measure() runs. Use one Client per measuring thread.
"""

import errno
import os
import re
import socket as _socket
import threading
import time
from typing import Callable, List, Optional

from . import wire
from .errors import ConnectError, DaemonGone, ProtocolError, server_error
from .records import append_records, make_record
from .task import HardwareParams, Task, as_task, state_text, task_to_binary
from .wire import ErrorCode, MeasureErrorNo, MeasureOptions, MeasureResult, MessageType


def connect_hint(error):
    """What to do about a socket that could not be connected to (errno `error`), as measurer says."""
    if error in (errno.EACCES, errno.EPERM):
        return ("  this user may not use that socket: measurerd's socket is open to its group "
                "(add yourself with `usermod -aG measurerd $USER`, then log in again)")
    return ("  is measurerd running? Start it with `measurerd --socket PATH`, or as a service with "
            "`systemctl start measurerd.socket`;\n"
            "  a daemon listening elsewhere is reached with socket=PATH or MEASURERD_SOCKET=PATH")

SYSTEM_SOCKET = "/run/measurerd/measurerd.sock"
CANCELLED_MESSAGE = "cancelled"

OnResult = Callable[[int, MeasureResult], None]


def default_socket_path() -> str:
    """$MEASURERD_SOCKET, else /run/measurerd/measurerd.sock when it exists, else
    $XDG_RUNTIME_DIR/measurerd.sock (the rules of the measurer CLI)."""
    s = os.environ.get("MEASURERD_SOCKET")
    if s:
        return s
    if os.path.exists(SYSTEM_SOCKET):
        return SYSTEM_SOCKET
    x = os.environ.get("XDG_RUNTIME_DIR")
    if x:
        return os.path.join(x, "measurerd.sock")
    return SYSTEM_SOCKET


def as_options(options) -> MeasureOptions:
    if options is None:
        return MeasureOptions()
    if isinstance(options, MeasureOptions):
        return options
    if isinstance(options, dict):
        known = set(MeasureOptions.__dataclass_fields__)
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValueError("unknown measure option %s; known: %s"
                             % (", ".join(unknown), ", ".join(sorted(known))))
        return MeasureOptions(**options)
    raise TypeError("options must be a MeasureOptions or a dict, not %r" % (options,))


# The INSTANTIATION_ERROR of an unknown function workload names the known ones.
_KNOWN_FUNCTIONS = re.compile(r"known functions: (.*)$", re.S)
_PROBE_NAME = "measurerd-python.no-such-workload"


class Client:
    def __init__(self, socket: Optional[str] = None, client_name: str = "measurerd-python"):
        """Connects to measurerd at `socket` (default_socket_path() when None) and says hello.
        Raises ConnectError, PeerNotAllowed or another ServerError, DaemonGone."""
        self.socket_path = socket or default_socket_path()
        self._decoder = wire.FrameDecoder()
        self._write_lock = threading.Lock()
        self._next_request = 1
        self._measuring = False
        self._in_flight = 0
        self._cancel_sent = False
        self._cancel_requested = False
        self._cancelled_ids = set()
        self.last_request_done: Optional[wire.RequestDone] = None  # of the last request sent
        self._sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            self._sock.connect(self.socket_path)
        except OSError as e:
            self._sock.close()
            raise ConnectError("cannot connect to measurerd at %s: %s\n%s"
                               % (self.socket_path, e.strerror or e, connect_hint(e.errno))) from None
        # A daemon that refuses this peer sends its Error frame at connect and closes without
        # reading: the Hello may meet a closed socket, and what the daemon said is reported.
        self._send_or_report(wire.encode_hello(client_name))
        frame = self._expect_frame()
        if frame[0] != MessageType.WELCOME:
            self._raise_frame(frame)
        self.welcome = self._decode(wire.decode_welcome, frame[1])

    # -- connection ---------------------------------------------------------------------------

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _send(self, data: bytes) -> None:
        with self._write_lock:
            self._send_locked(data)

    def _send_locked(self, data: bytes) -> None:
        if self._sock is None:
            raise DaemonGone("the connection to measurerd is closed")
        try:
            self._sock.sendall(data)
        except OSError as e:
            raise DaemonGone("send to measurerd: %s" % (e.strerror or e)) from None

    def _send_or_report(self, data: bytes) -> None:
        try:
            self._send(data)
        except DaemonGone as gone:
            self._report_pending(gone)

    def _report_pending(self, gone: DaemonGone):
        """After a failed send: the Error frame the daemon sent before it closed, when there is
        one, is the better report; else `gone`."""
        said = None
        try:
            said = self._read_frame()
        except (DaemonGone, ProtocolError):
            pass
        if said is not None and said[0] == MessageType.ERROR:
            self._raise_frame(said)
        self.close()
        raise gone

    def _read_frame(self):
        """The next frame as (type, body), None at end of stream."""
        while True:
            try:
                f = self._decoder.next()
            except wire.DecodeError as e:
                raise ProtocolError("bad frame from measurerd: %s" % e) from None
            if f is not None:
                return f
            if self._sock is None:
                raise DaemonGone("the connection to measurerd is closed")
            try:
                data = self._sock.recv(64 * 1024)
            except InterruptedError:
                continue
            except OSError as e:
                raise DaemonGone("read from measurerd: %s" % (e.strerror or e)) from None
            if not data:
                return None
            self._decoder.feed(data)

    def _expect_frame(self):
        while True:
            f = self._read_frame()
            if f is None:
                raise DaemonGone("measurerd closed the connection")
            if self._is_stale_cancel_answer(f):
                continue
            return f

    def _is_stale_cancel_answer(self, frame) -> bool:
        """An UNKNOWN_REQUEST answer to a Cancel that crossed its request's RequestDone."""
        if frame[0] != MessageType.ERROR:
            return False
        e = self._decode(wire.decode_error, frame[1])
        if e.code != ErrorCode.UNKNOWN_REQUEST:
            return False
        with self._write_lock:
            if e.request_id in self._cancelled_ids:
                self._cancelled_ids.discard(e.request_id)
                return True
        return False

    @staticmethod
    def _decode(decoder, body):
        try:
            return decoder(body)
        except wire.DecodeError as e:
            raise ProtocolError("bad message from measurerd: %s" % e) from None

    def _raise_frame(self, frame):
        if frame[0] == MessageType.ERROR:
            e = self._decode(wire.decode_error, frame[1])
            err = server_error(e.code, e.request_id, e.message)
            if e.code in (ErrorCode.SHUTTING_DOWN, ErrorCode.PEER_NOT_ALLOWED,
                          ErrorCode.INTERNAL) or e.code <= ErrorCode.MALFORMED_BODY:
                self.close()  # the daemon closes these connections
            raise err
        raise ProtocolError("unexpected message type %d from measurerd" % frame[0])

    # -- requests -----------------------------------------------------------------------------

    def measure(self, task_or_workload, states, options=None, target: Optional[str] = None,
                on_result: Optional[OnResult] = None,
                hardware: Optional[HardwareParams] = None,
                log: Optional[str] = None) -> List[MeasureResult]:
        """Measures every state of one workload and returns the results in state order.

        `task_or_workload` is a Task, a FunctionWorkload, a workload key
        ('["matmul", 64, 64, 64, "float32"]'), a ("matmul", 64, 64, 64, "float32") sequence or
        a task-file dict {"function": ..., "args": [...]}. Each state is a list of transform
        steps in TVM's record syntax ([] is the default schedule), TVM's [[], steps] form, or
        the JSON text of either. `options` is a MeasureOptions or a dict of its fields; `target`
        and `hardware` replace the task's. `on_result(index, result)` sees each result as it
        arrives, in index order, exactly once per state (cancelled ones too). With `log`, each
        result but the cancelled ones is appended to that file as a TVM v0.6 record as it
        arrives (num_cores 0 is written as the daemon's cores, as `measurer submit --log`).

        Ctrl-C (KeyboardInterrupt) cancels the request, waits for the results of the inputs
        already on workers (a second Ctrl-C stops waiting and closes the connection), then
        re-raises. Raises DaemonGone, ServerError, ProtocolError; measurement failures are
        results, not exceptions."""
        task = as_task(task_or_workload, target, hardware)
        task_bytes = task_to_binary(task)
        texts = [state_text(s) for s in states]
        opts = as_options(options)
        results: List[Optional[MeasureResult]] = [None] * len(texts)
        if log is not None:
            on_result = self._logging(task, texts, log, on_result)
        with self._write_lock:
            if self._measuring:
                raise RuntimeError("measure() is already running on this Client")
            self._measuring = True
            self._in_flight = 0
            self._cancel_requested = False
        try:
            chunk = self.welcome.max_states or max(1, len(texts))
            for off in range(0, len(texts), chunk):
                self._measure_one(task_bytes, texts[off:off + chunk], off, opts, results,
                                  on_result)
        finally:
            with self._write_lock:
                self._measuring = False
                self._in_flight = 0
        return results

    def _logging(self, task, texts, path, on_result):
        hw = task.hardware
        if hw.num_cores == 0:
            hw = HardwareParams(self.welcome.cores, hw.vector_unit_bytes, hw.cache_line_bytes)
        logged = Task(task.workload, task.target, hw, task.layout_rewrite_option)

        def log_and_pass(index, result):
            if not result.cancelled:
                append_records(path, [make_record(logged, texts[index], result)])
            if on_result:
                on_result(index, result)

        return log_and_pass

    def _measure_one(self, task_bytes, texts, offset, opts, results, on_result):
        failed = None
        with self._write_lock:
            request_id = self._next_request
            self._next_request += 1
            sent = False
            if not self._cancel_requested:
                try:
                    self._send_locked(wire.encode_measure_request(request_id, task_bytes, texts,
                                                                  opts))
                except DaemonGone as gone:
                    failed = gone
                self._in_flight = request_id
                self._cancel_sent = False
                sent = True
        if failed is not None:
            self._report_pending(failed)
        if not sent:  # cancelled before this part was sent: its results are local
            for i in range(len(texts)):
                r = MeasureResult(error_no=MeasureErrorNo.UNKNOWN_ERROR,
                                  error_msg=CANCELLED_MESSAGE, timestamp=time.time(),
                                  timing_policy=self.welcome.timing_policy)
                results[offset + i] = r
                if on_result:
                    on_result(offset + i, r)
            return
        expected = 0
        interrupted = False
        while True:
            try:
                frame = self._expect_frame()
                kind = frame[0]
                if kind == MessageType.MEASURE_RESULT:
                    m = self._decode(wire.decode_measure_result, frame[1])
                    if m.request_id != request_id or m.index != expected:
                        raise ProtocolError("result out of order from measurerd: request %d "
                                            "index %d" % (m.request_id, m.index))
                    expected += 1
                    results[offset + m.index] = m.result
                    if on_result:
                        on_result(offset + m.index, m.result)
                elif kind == MessageType.REQUEST_DONE:
                    d = self._decode(wire.decode_request_done, frame[1])
                    if d.request_id != request_id or d.count != expected:
                        raise ProtocolError("request done before all its results")
                    with self._write_lock:
                        self._in_flight = 0
                    self.last_request_done = d
                    break
                else:
                    self._raise_frame(frame)
            except KeyboardInterrupt:
                if interrupted:  # a second Ctrl-C: stop waiting
                    self.close()
                    raise
                interrupted = True
                self.cancel()
        if interrupted:
            raise KeyboardInterrupt

    def cancel(self) -> bool:
        """Cancels the measure() in progress; safe from on_result and from another thread.
        Inputs not yet started come back UNKNOWN_ERROR "cancelled", inputs on workers finish,
        and measure() returns as usual. Returns False when no measure() runs. Never raises: a
        broken connection shows in measure()."""
        with self._write_lock:
            if not self._measuring:
                return False
            self._cancel_requested = True
            if self._in_flight and not self._cancel_sent:
                self._cancel_sent = True
                self._cancelled_ids.add(self._in_flight)
                try:
                    self._send_locked(wire.encode_cancel(self._in_flight))
                except DaemonGone:
                    pass
            return True

    @property
    def cancelled(self) -> bool:
        """True when cancel() took effect on the measure() in progress or on the last one."""
        return self._cancel_requested

    def status(self) -> wire.Status:
        self._send_or_report(wire.encode_status_request())
        frame = self._expect_frame()
        if frame[0] != MessageType.STATUS_REPLY:
            self._raise_frame(frame)
        return self._decode(wire.decode_status, frame[1])

    def workloads(self) -> List[str]:
        """The function workloads the daemon's workers know, sorted by name. The protocol has no
        message for it: this asks the daemon to instantiate a workload that does not exist,
        and reads the known names from the INSTANTIATION_ERROR that lists them (one cheap
        job on a worker, nothing compiled)."""
        (r,) = self.measure((_PROBE_NAME,), [[]], MeasureOptions(number=1, min_repeat_ms=0))
        m = _KNOWN_FUNCTIONS.search(r.error_msg)
        if r.error_no != MeasureErrorNo.INSTANTIATION_ERROR or not m:
            raise ProtocolError("measurerd did not list its workloads: %s %s"
                                % (r.error_name, r.error_msg))
        return sorted(n.strip() for n in m.group(1).strip().split(",") if n.strip())

    # -- raw access, for tests of the protocol ------------------------------------------------

    def send_bytes(self, data: bytes) -> None:
        self._send(data)

    def read_frame(self):
        """The next frame as (type, body), None when measurerd closed the connection."""
        return self._read_frame()

"""The wire protocol of measurerd (proto-docs/protocol.md), version 1.

Frames are a 12-byte little-endian header (magic "MRDP", u16 version, u16 type, u32 body
length) and a body laid out as cereal's BinaryOutputArchive writes it: fixed-size
little-endian numbers, bools as one byte, strings and lists as a u64 count then the
elements. Everything here is pure: bytes in, values out, no I/O.
"""

import enum
import struct
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

MAGIC = 0x5044524D  # "MRDP"
VERSION = 1
HEADER_SIZE = 12
_HEADER = struct.Struct("<IHHI")

#: Largest frame body this client accepts from the daemon.
MAX_BODY = 1 << 30


class MessageType(enum.IntEnum):
    HELLO = 1
    WELCOME = 2
    MEASURE_REQUEST = 3
    MEASURE_RESULT = 4
    REQUEST_DONE = 5
    STATUS_REQUEST = 6
    STATUS_REPLY = 7
    CANCEL = 8
    ERROR = 9


class ErrorCode(enum.IntEnum):
    """Codes of Error frames; the numbers are part of the protocol."""

    BAD_MAGIC = 1
    UNSUPPORTED_VERSION = 2
    BODY_TOO_LARGE = 3
    MALFORMED_BODY = 4
    UNEXPECTED_MESSAGE = 5
    INVALID_REQUEST = 6
    DUPLICATE_REQUEST = 7
    UNKNOWN_REQUEST = 8
    SHUTTING_DOWN = 9
    INTERNAL = 10
    PEER_NOT_ALLOWED = 11
    TIMED_OUT = 12
    TOO_MANY_CONNECTIONS = 13


def error_code_name(code: int) -> str:
    try:
        return ErrorCode(code).name
    except ValueError:
        return "UNKNOWN"


class MeasureErrorNo(enum.IntEnum):
    """TVM's auto_scheduler MeasureErrorNo; the numbers are part of the record format."""

    NO_ERROR = 0
    INSTANTIATION_ERROR = 1
    COMPILE_HOST = 2
    COMPILE_DEVICE = 3
    RUNTIME_DEVICE = 4
    WRONG_ANSWER = 5
    BUILD_TIMEOUT = 6
    RUN_TIMEOUT = 7
    UNKNOWN_ERROR = 8


class TimingPolicy(enum.IntEnum):
    EXCLUSIVE = 0
    SHARED = 1
    PINNED = 2


class WorkerState(enum.IntEnum):
    STARTING = 0
    IDLE = 1
    BUILDING = 2
    RUNNING = 3


class DecodeError(ValueError):
    """Bytes from the peer that are not a valid frame or body."""


# ---------------------------------------------------------------------------------------------
# Messages


@dataclass
class MeasureOptions:
    """TVM's LocalBuilder/LocalRunner options (timeouts and cooldown in seconds)."""

    number: int = 3
    repeat: int = 1
    min_repeat_ms: int = 100
    cooldown_interval: float = 0.0
    enable_cpu_cache_flush: bool = False
    build_timeout: float = 15.0
    run_timeout: float = 10.0
    check_correctness: bool = False
    # Stop timing a state whose warm-up call alone is slower than skip_hopeless_factor times
    # the best mean cost the daemon has measured for the task.
    skip_hopeless: bool = False
    skip_hopeless_factor: float = 10.0


@dataclass
class MeasureResult:
    """One state's result, TVM's MeasureResult with measurerd's extra fields."""

    costs: List[float] = field(default_factory=list)  # seconds per call, one per repeat
    error_no: int = 0
    error_msg: str = ""
    all_cost: float = 0.0  # build + run seconds
    timestamp: float = 0.0  # seconds since the epoch
    build_seconds: float = 0.0
    run_seconds: float = 0.0
    cache_hit: bool = False
    timing_policy: int = TimingPolicy.EXCLUSIVE
    timing_skipped: bool = False  # skip-hopeless: costs hold the warm-up call's time

    @property
    def ok(self) -> bool:
        return self.error_no == MeasureErrorNo.NO_ERROR

    @property
    def error_name(self) -> str:
        try:
            return MeasureErrorNo(self.error_no).name
        except ValueError:
            return "UNKNOWN"

    @property
    def mean_cost(self) -> Optional[float]:
        """Mean seconds per call, None on error."""
        if not self.ok or not self.costs:
            return None
        return sum(self.costs) / len(self.costs)

    @property
    def cancelled(self) -> bool:
        """True for an input that was cancelled before it started, not measured."""
        return self.error_no == MeasureErrorNo.UNKNOWN_ERROR and self.error_msg == "cancelled"


@dataclass
class Welcome:
    version: int
    server_version: str
    cpu_model: str
    cores: int
    workers: int
    timing_policy: int
    max_body: int
    max_states: int


@dataclass
class RequestDone:
    request_id: int
    count: int
    errors: int


@dataclass
class WorkerStatus:
    pid: int
    state: int
    jobs: int


@dataclass
class Status:
    workers: int
    workers_alive: int
    queued: int
    in_flight: int
    completed: int
    throughput: float  # results per second over the last minute
    cache_hits: int
    uptime: float
    clients: int
    requests: int
    timing_policy: int
    worker_list: List[WorkerStatus]
    degraded: str = ""  # empty while the daemon is whole; else why it runs short of workers


@dataclass
class ErrorMsg:
    code: int
    request_id: int
    message: str


@dataclass
class MeasureResultMsg:
    request_id: int
    index: int
    result: MeasureResult


# ---------------------------------------------------------------------------------------------
# Frames


def encode_header(msg_type: int, body_length: int, version: int = VERSION) -> bytes:
    return _HEADER.pack(MAGIC, version, msg_type, body_length)


def make_frame(msg_type: int, body: bytes = b"") -> bytes:
    if len(body) > 0xFFFFFFFF:
        raise ValueError("frame body of %d bytes" % len(body))
    return encode_header(msg_type, len(body)) + body


def decode_header(header: bytes, max_body: int = MAX_BODY) -> Tuple[int, int]:
    """Checks a header and returns (type, body_length); raises DecodeError."""
    magic, version, msg_type, length = _HEADER.unpack(header)
    if magic != MAGIC:
        raise DecodeError("bad magic 0x%08x from measurerd" % magic)
    if version != VERSION:
        raise DecodeError("unsupported protocol version %d from measurerd" % version)
    if length > max_body:
        raise DecodeError("frame body of %d bytes exceeds %d" % (length, max_body))
    return msg_type, length


class FrameDecoder:
    """Incremental: feed bytes as they arrive, take whole frames as (type, body)."""

    def __init__(self, max_body: int = MAX_BODY):
        self._buf = bytearray()
        self._max_body = max_body

    def feed(self, data: bytes) -> None:
        self._buf += data

    def next(self) -> Optional[Tuple[int, bytes]]:
        if len(self._buf) < HEADER_SIZE:
            return None
        msg_type, length = decode_header(bytes(self._buf[:HEADER_SIZE]), self._max_body)
        if len(self._buf) < HEADER_SIZE + length:
            return None
        body = bytes(self._buf[HEADER_SIZE : HEADER_SIZE + length])
        del self._buf[: HEADER_SIZE + length]
        return msg_type, body


# ---------------------------------------------------------------------------------------------
# Bodies


class BodyWriter:
    def __init__(self):
        self._parts = []

    def _pack(self, fmt: str, v) -> "BodyWriter":
        self._parts.append(struct.pack("<" + fmt, v))
        return self

    def u8(self, v: int):
        return self._pack("B", v)

    def u16(self, v: int):
        return self._pack("H", v)

    def u32(self, v: int):
        return self._pack("I", v)

    def u64(self, v: int):
        return self._pack("Q", v)

    def i32(self, v: int):
        return self._pack("i", v)

    def f64(self, v: float):
        return self._pack("d", v)

    def boolean(self, v: bool):
        return self._pack("B", 1 if v else 0)

    def string(self, s) -> "BodyWriter":
        b = s.encode() if isinstance(s, str) else bytes(s)
        self.u64(len(b))
        self._parts.append(b)
        return self

    def strings(self, items) -> "BodyWriter":
        items = list(items)
        self.u64(len(items))
        for s in items:
            self.string(s)
        return self

    def bytes(self) -> bytes:
        return b"".join(self._parts)


class BodyReader:
    """Reads a body; every count is checked against the bytes left before anything is built."""

    def __init__(self, body: bytes):
        self._b = memoryview(body)
        self._pos = 0

    def remaining(self) -> int:
        return len(self._b) - self._pos

    def _unpack(self, fmt: str):
        s = struct.Struct("<" + fmt)
        if s.size > self.remaining():
            raise DecodeError("message body is truncated")
        (v,) = s.unpack_from(self._b, self._pos)
        self._pos += s.size
        return v

    def u8(self) -> int:
        return self._unpack("B")

    def u16(self) -> int:
        return self._unpack("H")

    def u32(self) -> int:
        return self._unpack("I")

    def u64(self) -> int:
        return self._unpack("Q")

    def i32(self) -> int:
        return self._unpack("i")

    def f64(self) -> float:
        return self._unpack("d")

    def boolean(self) -> bool:
        v = self.u8()
        if v > 1:
            raise DecodeError("bool field is neither 0 nor 1")
        return v == 1

    def raw_string(self) -> bytes:
        n = self.u64()
        if n > self.remaining():
            raise DecodeError("string length exceeds the body")
        b = bytes(self._b[self._pos : self._pos + n])
        self._pos += n
        return b

    def string(self) -> str:
        return self.raw_string().decode("utf-8", errors="replace")

    def doubles(self) -> List[float]:
        n = self.u64()
        if n > self.remaining() // 8:
            raise DecodeError("value count exceeds the body")
        return [self.f64() for _ in range(n)]

    def enum(self, cls, raw: int):
        try:
            return cls(raw)
        except ValueError:
            raise DecodeError("unknown %s %d" % (cls.__name__, raw)) from None


def _write_options(w: BodyWriter, o: MeasureOptions) -> None:
    w.i32(int(o.number)).i32(int(o.repeat)).i32(int(o.min_repeat_ms))
    w.f64(float(o.cooldown_interval)).boolean(o.enable_cpu_cache_flush)
    w.f64(float(o.build_timeout)).f64(float(o.run_timeout)).boolean(o.check_correctness)
    w.boolean(o.skip_hopeless).f64(float(o.skip_hopeless_factor))


def _read_result(r: BodyReader) -> MeasureResult:
    costs = r.doubles()
    error_no = r.enum(MeasureErrorNo, r.i32())
    error_msg = r.string()
    all_cost, timestamp, build_s, run_s = r.f64(), r.f64(), r.f64(), r.f64()
    cache_hit = r.boolean()
    policy = r.enum(TimingPolicy, r.u8())
    skipped = r.boolean() if r.remaining() > 0 else False  # appended field
    return MeasureResult(costs, error_no, error_msg, all_cost, timestamp, build_s, run_s,
                         cache_hit, policy, skipped)


def encode_hello(client_name: str, min_version: int = VERSION, max_version: int = VERSION) -> bytes:
    w = BodyWriter().u16(min_version).u16(max_version).string(client_name)
    return make_frame(MessageType.HELLO, w.bytes())


def encode_measure_request(request_id: int, task: bytes, states, options: MeasureOptions) -> bytes:
    w = BodyWriter().u64(request_id).string(task).strings(states)
    _write_options(w, options)
    return make_frame(MessageType.MEASURE_REQUEST, w.bytes())


def encode_status_request() -> bytes:
    return make_frame(MessageType.STATUS_REQUEST)


def encode_cancel(request_id: int) -> bytes:
    return make_frame(MessageType.CANCEL, BodyWriter().u64(request_id).bytes())


# Decoders read the fields they know and ignore any bytes after them (fields are only ever
# appended within a version).


def decode_welcome(body: bytes) -> Welcome:
    r = BodyReader(body)
    version = r.u16()
    server_version, cpu_model = r.string(), r.string()
    cores, workers = r.u32(), r.u32()
    policy = r.enum(TimingPolicy, r.u8())
    return Welcome(version, server_version, cpu_model, cores, workers, policy, r.u32(), r.u32())


def decode_measure_result(body: bytes) -> MeasureResultMsg:
    r = BodyReader(body)
    request_id, index = r.u64(), r.u32()
    return MeasureResultMsg(request_id, index, _read_result(r))


def decode_request_done(body: bytes) -> RequestDone:
    r = BodyReader(body)
    return RequestDone(r.u64(), r.u32(), r.u32())


def decode_status(body: bytes) -> Status:
    r = BodyReader(body)
    fields = [r.u32(), r.u32(), r.u64(), r.u64(), r.u64(), r.f64(), r.u64(), r.f64(), r.u32(),
              r.u32(), r.enum(TimingPolicy, r.u8())]
    n = r.u64()
    if n > r.remaining() // (4 + 1 + 8):
        raise DecodeError("worker count exceeds the body")
    workers = []
    for _ in range(n):
        pid = r.i32()
        state = r.enum(WorkerState, r.u8())
        workers.append(WorkerStatus(pid, state, r.u64()))
    degraded = r.string() if r.remaining() > 0 else ""  # appended; older daemons omit it
    return Status(*fields, workers, degraded)


def decode_error(body: bytes) -> ErrorMsg:
    r = BodyReader(body)
    return ErrorMsg(r.u16(), r.u64(), r.string())

"""The wire layout without a daemon: frames, bodies, task bytes."""

import struct

import pytest

from measurerd import wire
from measurerd.task import FunctionWorkload, HardwareParams, Task, state_text, task_to_binary


def test_header_layout():
    f = wire.make_frame(wire.MessageType.STATUS_REQUEST)
    assert f == b"MRDP" + struct.pack("<HHI", 1, 6, 0)
    assert wire.decode_header(f) == (6, 0)


@pytest.mark.parametrize("header,what", [
    (b"MRDX" + struct.pack("<HHI", 1, 2, 0), "magic"),
    (b"MRDP" + struct.pack("<HHI", 2, 2, 0), "version"),
    (b"MRDP" + struct.pack("<HHI", 1, 2, 1 << 31), "exceeds"),
])
def test_a_bad_header_is_refused_before_the_body(header, what):
    d = wire.FrameDecoder(1 << 30)
    d.feed(header)
    with pytest.raises(wire.DecodeError, match=what):
        d.next()


def test_frames_split_anywhere():
    body = wire.BodyWriter().u64(7).u32(3).u32(1).bytes()
    frame = wire.make_frame(wire.MessageType.REQUEST_DONE, body) * 2
    d = wire.FrameDecoder()
    got = []
    for b in frame:
        d.feed(bytes([b]))
        f = d.next()
        if f:
            got.append(f)
    assert [wire.decode_request_done(b) for _, b in got] == [wire.RequestDone(7, 3, 1)] * 2


def test_bodies_are_cereal_binary():
    req = wire.encode_measure_request(5, b"TASK", ["[]", "[1]"], wire.MeasureOptions())
    body = req[wire.HEADER_SIZE:]
    expect = (struct.pack("<Q", 5) + struct.pack("<Q", 4) + b"TASK" + struct.pack("<Q", 2)
              + struct.pack("<Q", 2) + b"[]" + struct.pack("<Q", 3) + b"[1]"
              + struct.pack("<iiidBddB", 3, 1, 100, 0.0, 0, 15.0, 10.0, 0)
              + struct.pack("<Bd", 0, 10.0))  # skip_hopeless, skip_hopeless_factor
    assert body == expect


def _result_body(error_no=0, cache_hit=1, policy=1, skipped=1, tail=b""):
    return (struct.pack("<QI", 9, 2) + struct.pack("<Q", 2) + struct.pack("<dd", 1e-3, 2e-3)
            + struct.pack("<i", error_no) + struct.pack("<Q", 2) + b"ok"
            + struct.pack("<dddd", 0.5, 1.7e9, 0.3, 0.2) + bytes([cache_hit, policy])
            + (bytes([skipped]) if skipped is not None else b"") + tail)


def test_result_decodes_and_ignores_appended_fields():
    m = wire.decode_measure_result(_result_body(tail=b"future fields"))
    assert (m.request_id, m.index) == (9, 2)
    r = m.result
    assert r.costs == [1e-3, 2e-3] and r.error_msg == "ok" and r.cache_hit
    assert r.timing_policy == wire.TimingPolicy.SHARED
    assert r.mean_cost == pytest.approx(1.5e-3)
    assert r.timing_skipped


def test_result_of_an_older_daemon_has_no_timing_skipped():
    r = wire.decode_measure_result(_result_body(policy=2, skipped=None)).result
    assert r.timing_policy == wire.TimingPolicy.PINNED and not r.timing_skipped


def _status_body(degraded=None):
    w = wire.BodyWriter()
    w.u32(2).u32(1).u64(0).u64(0).u64(5).f64(0.5).u64(1).f64(9.0).u32(1).u32(0).u8(0)
    w.u64(1).i32(42).u8(1).u64(5)
    if degraded is not None:
        w.string(degraded)
    return w.bytes()


def test_status_reads_degraded_and_replies_of_older_daemons():
    s = wire.decode_status(_status_body("1 of 2 workers could not be started: why"))
    assert s.workers == 2 and s.workers_alive == 1 and s.worker_list[0].pid == 42
    assert s.degraded == "1 of 2 workers could not be started: why"
    assert wire.decode_status(_status_body()).degraded == ""  # a daemon without the field


@pytest.mark.parametrize("body", [
    _result_body(error_no=9), _result_body(cache_hit=2), _result_body(policy=3),
    _result_body(skipped=2), _result_body(skipped=None)[:-1], struct.pack("<QIQ", 1, 0, 1 << 60)])
def test_bad_bodies_are_decode_errors(body):
    with pytest.raises(wire.DecodeError):
        wire.decode_measure_result(body)


def test_task_bytes():
    t = Task(FunctionWorkload("mm", [2, 1.5, "f32"]), "llvm", HardwareParams(1, 64, 32))
    w = (b"MRDW\x01\x01" + struct.pack("<I", 2) + b"mm" + struct.pack("<I", 3)
         + b"\x01" + struct.pack("<q", 2) + b"\x02" + struct.pack("<d", 1.5)
         + b"\x03" + struct.pack("<I", 3) + b"f32")
    assert task_to_binary(t) == (b"MRDT\x02" + struct.pack("<I", 4) + b"llvm"
                                 + struct.pack("<iii", 1, 64, 32) + b"\x01" + struct.pack("<Q", len(w)) + w)
    assert FunctionWorkload.from_key(t.workload.key()) == t.workload
    with pytest.raises(TypeError):
        task_to_binary(Task(FunctionWorkload("mm", [True])))
    with pytest.raises(ValueError):
        FunctionWorkload.from_key('["a3f9...", [1, 2]]')


def test_state_forms():
    steps = [["SP", 2, 0, 64, [16], 1]]
    assert state_text(steps) == state_text([[], steps]) == state_text('[["SP", 2, 0, 64, [16], 1]]')
    assert state_text([]) == "[]"


def _doc_example():
    """proto-docs/dag-format.md's example: A[4] and B(i) = A[i] + 1.0f."""
    from measurerd.dag import DagWriter
    w = DagWriter()
    a = w.placeholder("A", "float32", [4])
    i = w.var("i", "int32")
    body = w.binary("float32", "+", w.tensor_read("float32", a, [i]), w.float_imm("float32", 1.0))
    return w.archive([a, w.compute("B", "", "float32", [(i, 0, 4)], body)])


def test_dag_archive_is_the_documented_binary_form():
    assert _doc_example() == bytes.fromhex(" ".join([
        "4d 52 44 44 41 47 01 00",                           # magic, version 1
        "06",                                                # 6 nodes
        "00 01 41 03 01 04 00 00 00 00 00 00 00",            # placeholder "A" float32 [4]
        "04 01 69 01",                                       # var "i" int32
        "0a 03 00 01 01",                                    # tensor_read of 0 at [1]
        "03 03 00 00 00 00 00 00 f0 3f",                     # float_imm 1.0
        "05 03 00 02 02 03",                                 # binary + [2, 3]
        "01 01 42 00 03 01 01 00 00 00 00 00 00 00 00"       # compute "B", axis (1, 0, 4),
        "   04 00 00 00 00 00 00 00 04",                     # body 4
        "02 00 05"]))                                        # tensors 0, 5

#include <catch2/catch.hpp>
#include <cstring>
#include <random>

#include "common/proto/codec.h"

using namespace mrd::proto;
using mrd::measure::MeasureErrorNo;
using mrd::measure::TimingPolicy;

namespace {

std::string body_of(const std::string& frame) {
  return frame.substr(kHeaderSize);
}

template <class M>
M round_trip(const M& m) {
  std::string f = encode(m);
  FrameHeader h = decode_header(f.data());
  REQUIRE(h.type == uint16_t(M::kType));
  REQUIRE(h.body_length == f.size() - kHeaderSize);
  return decode<M>(body_of(f));
}

}  // namespace

TEST_CASE("messages round trip") {
  MeasureRequest r;
  r.request_id = 0x1122334455667788ull;
  r.task = std::string("\0\x01\xff task bytes", 14);
  r.states = {"[]", "[[\"SP\", 2, 0, 512, [16], 1]]", ""};
  r.options.number = 5;
  r.options.run_timeout = 0.25;
  r.options.check_correctness = true;
  auto r2 = round_trip(r);
  CHECK(r2.request_id == r.request_id);
  CHECK(r2.task == r.task);
  CHECK(r2.states == r.states);
  CHECK(r2.options.number == 5);
  CHECK(r2.options.run_timeout == 0.25);
  CHECK(r2.options.check_correctness);

  MeasureResultMsg m;
  m.request_id = 9;
  m.index = 3;
  m.result.costs = {1e-3, 2e-3};
  m.result.error_no = MeasureErrorNo::RunTimeout;
  m.result.error_msg = "slow";
  m.result.policy = TimingPolicy::Shared;
  m.result.cache_hit = true;
  auto m2 = round_trip(m);
  CHECK(m2.index == 3);
  CHECK(m2.result.costs == m.result.costs);
  CHECK(m2.result.error_no == MeasureErrorNo::RunTimeout);
  CHECK(m2.result.error_msg == "slow");
  CHECK(m2.result.policy == TimingPolicy::Shared);
  CHECK(m2.result.cache_hit);

  StatusReply s;
  s.workers = 2;
  s.completed = 77;
  s.worker_list = {{123, WorkerState::Running, 4}, {456, WorkerState::Idle, 0}};
  auto s2 = round_trip(s);
  CHECK(s2.completed == 77);
  REQUIRE(s2.worker_list.size() == 2);
  CHECK(s2.worker_list[0].pid == 123);
  CHECK(s2.worker_list[0].state == WorkerState::Running);
  CHECK(s2.degraded.empty());
  s.degraded = "1 of 2 workers could not be started: why";
  CHECK(round_trip(s).degraded == s.degraded);
  // A reply from a daemon that predates the field ends after worker_list.
  s.degraded.clear();
  std::string older = body_of(encode(s));
  older.resize(older.size() - 8);  // the empty string's length
  auto s3 = decode<StatusReply>(older);
  CHECK(s3.worker_list.size() == 2);
  CHECK(s3.degraded.empty());

  Welcome w;
  w.cpu_model = "Some CPU";
  w.cores = 8;
  w.policy = TimingPolicy::Shared;
  auto w2 = round_trip(w);
  CHECK(w2.cpu_model == "Some CPU");
  CHECK(w2.cores == 8);
  CHECK(w2.policy == TimingPolicy::Shared);

  JobResult j;
  j.job_id = 5;
  j.artifact = "/cache/x.so";
  j.retire = true;
  auto j2 = round_trip(j);
  CHECK(j2.artifact == "/cache/x.so");
  CHECK(j2.retire);

  ErrorMsg e =
      round_trip(decode<ErrorMsg>(body_of(encode_error(ErrorCode::DuplicateRequest, "dup", 4))));
  CHECK(e.code == uint16_t(ErrorCode::DuplicateRequest));
  CHECK(e.request_id == 4);
  CHECK(e.message == "dup");
}

TEST_CASE("trailing bytes after known fields are ignored") {
  std::string body = body_of(encode(Cancel{7})) + "future fields";
  CHECK(decode<Cancel>(body).request_id == 7);
}

TEST_CASE("a string length beyond the body is refused before allocating") {
  std::string body = body_of(encode(Hello{}));
  // client_name length sits after the two uint16 versions
  uint64_t huge = uint64_t(1) << 60;
  std::memcpy(body.data() + 4, &huge, 8);
  try {
    decode<Hello>(body);
    FAIL("decoded");
  } catch (const ProtocolError& e) {
    CHECK(e.code() == ErrorCode::MalformedBody);
  }
}

TEST_CASE("a state count beyond the body or the limit is refused") {
  MeasureRequest r;
  r.states = {"a", "b"};
  std::string body = body_of(encode(r));
  size_t count_at = 8 + 8 + r.task.size();
  uint64_t huge = uint64_t(1) << 40;
  std::string hostile = body;
  std::memcpy(hostile.data() + count_at, &huge, 8);
  CHECK_THROWS_AS(decode<MeasureRequest>(hostile), ProtocolError);
  Limits one;
  one.max_states = 1;
  CHECK_THROWS_AS(decode<MeasureRequest>(body, one), ProtocolError);
  CHECK(decode<MeasureRequest>(body).states.size() == 2);
}

TEST_CASE("bad enum and bool bytes are refused") {
  MeasureResultMsg m;
  std::string body = body_of(encode(m));
  size_t error_no_at = 8 + 4 + 8;  // request id, index, empty costs count
  std::string bad = body;
  bad[error_no_at] = 99;
  CHECK_THROWS_AS(decode<MeasureResultMsg>(bad), ProtocolError);
  bad = body;
  bad[body.size() - 3] = 2;  // cache_hit
  CHECK_THROWS_AS(decode<MeasureResultMsg>(bad), ProtocolError);
  bad = body;
  bad[body.size() - 2] = 5;  // policy
  CHECK_THROWS_AS(decode<MeasureResultMsg>(bad), ProtocolError);
  bad = body;
  bad[body.size() - 1] = 2;  // timing_skipped
  CHECK_THROWS_AS(decode<MeasureResultMsg>(bad), ProtocolError);
}

TEST_CASE("appended fields: a body of an older peer, which ends before them, keeps the defaults") {
  MeasureResultMsg m;
  m.result.timing_skipped = true;
  m.result.policy = mrd::measure::TimingPolicy::Pinned;
  std::string body = body_of(encode(m));
  CHECK(decode<MeasureResultMsg>(body).result.timing_skipped);
  CHECK(decode<MeasureResultMsg>(body).result.policy == mrd::measure::TimingPolicy::Pinned);
  CHECK_FALSE(decode<MeasureResultMsg>(body.substr(0, body.size() - 1)).result.timing_skipped);

  MeasureRequest r;
  r.options.skip_hopeless = true;
  r.options.skip_hopeless_factor = 4;
  std::string req = body_of(encode(r));
  auto back = decode<MeasureRequest>(req);
  CHECK(back.options.skip_hopeless);
  CHECK(back.options.skip_hopeless_factor == 4);
  auto old = decode<MeasureRequest>(req.substr(0, req.size() - 9));  // bool + f64
  CHECK_FALSE(old.options.skip_hopeless);
  CHECK(old.options.skip_hopeless_factor == 10);
  // Half of the appended fields is a truncated body.
  CHECK_THROWS_AS(decode<MeasureRequest>(req.substr(0, req.size() - 8)), ProtocolError);
}

TEST_CASE("every truncation and random garbage either decodes or throws ProtocolError") {
  MeasureRequest r;
  r.task = "task";
  r.states = {"[]", "[1]"};
  std::string body = body_of(encode(r));
  const size_t appended = 1 + 8;  // skip_hopeless, skip_hopeless_factor: absent from older peers
  for (size_t n = 0; n < body.size(); ++n) {
    INFO("truncated to " << n << " of " << body.size());
    if (n == body.size() - appended)
      CHECK_NOTHROW(decode<MeasureRequest>(body.substr(0, n)));
    else
      CHECK_THROWS_AS(decode<MeasureRequest>(body.substr(0, n)), ProtocolError);
  }

  std::mt19937 rng(1234);
  int refused = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string g(rng() % 200, '\0');
    for (auto& c : g) c = static_cast<char>(rng());
    try {
      decode<MeasureRequest>(g);
      decode<StatusReply>(g);
    } catch (const ProtocolError&) {
      ++refused;
    }
  }
  CHECK(refused > 0);
}

TEST_CASE("option checks name the bad field") {
  mrd::measure::MeasureOptions o;
  CHECK(check_options(o).empty());
  o.run_timeout = -1;
  CHECK(check_options(o) == "run_timeout must be in (0, 3600] s");
  o = {};
  o.number = 0;
  CHECK_FALSE(check_options(o).empty());
}

TEST_CASE("task digests tell tasks apart by content and size") {
  CHECK(task_digest("abc") == task_digest("abc"));
  CHECK(task_digest("abc") != task_digest("abd"));
  CHECK(task_digest("").size == 0);
  // SHA-256("abc"), FIPS 180-2 appendix B.1.
  CHECK(task_digest("abc").short_hex() == "ba7816bf8f01cfea");
}

TEST_CASE("a job's task bytes must be as long as its digest says") {
  BuildJob b;
  std::string task = "task";
  b.task = TaskRef{task_digest(task), true, task};
  b.task.digest.size = 5;
  CHECK_THROWS_AS(decode<BuildJob>(encode(b).substr(kHeaderSize)), ProtocolError);
}

TEST_CASE("worker job messages round trip") {
  BuildJob b;
  b.job_id = 12;
  std::string task("\x00\x01task", 6);
  b.task = TaskRef{task_digest(task), true, task};
  b.steps = R"([["SP", 2, 0, 64, [8], 1]])";
  b.options.build_timeout = 2.5;
  auto b2 = decode<BuildJob>(encode(b).substr(kHeaderSize));
  CHECK(b2.job_id == 12);
  CHECK(b2.task.has_bytes);
  CHECK(b2.task.bytes == task);
  CHECK(b2.task.digest == task_digest(task));
  CHECK(b2.steps == b.steps);
  CHECK(b2.options.build_timeout == 2.5);

  RunJob r;
  r.job_id = 13;
  r.task.digest = task_digest(task);  // by digest only
  r.artifact = "/cache/ab/cd.so";
  r.options.enable_cpu_cache_flush = true;
  r.options.skip_hopeless = true;
  r.best_cost = 0.0125;
  std::string run_frame = encode(r);
  CHECK(run_frame.size() < encode(b).size());
  auto r2 = decode<RunJob>(run_frame.substr(kHeaderSize));
  CHECK(r2.artifact == r.artifact);
  CHECK(r2.options.enable_cpu_cache_flush);
  CHECK(r2.options.skip_hopeless);
  CHECK(r2.best_cost == 0.0125);
  CHECK_FALSE(r2.task.has_bytes);
  CHECK(r2.task.digest == task_digest(task));

  TaskMissing m{13, task_digest(task)};
  auto m2 = decode<TaskMissing>(encode(m).substr(kHeaderSize));
  CHECK(m2.job_id == 13);
  CHECK(m2.digest == m.digest);

  WorkerReady w;
  w.pid = 4242;
  CHECK(decode<WorkerReady>(encode(w).substr(kHeaderSize)).pid == 4242);
}

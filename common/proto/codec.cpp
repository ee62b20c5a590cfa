#include "common/proto/codec.h"

#include "common/measure/option_ranges.h"

#include <cmath>

#include "common/util/error.h"

namespace mrd::proto {
namespace {

[[noreturn]] void malformed(const std::string& what) {
  throw ProtocolError(ErrorCode::MalformedBody, what);
}

measure::TimingPolicy read_policy(BodyReader& ar) {
  uint8_t p = 0;
  ar(p);
  if (p > uint8_t(measure::TimingPolicy::Pinned)) malformed("unknown timing policy");
  return static_cast<measure::TimingPolicy>(p);
}

}  // namespace

void write(BodyWriter& ar, const measure::MeasureOptions& m) {
  ar(int32_t(m.number), int32_t(m.repeat), int32_t(m.min_repeat_ms), m.cooldown_interval,
     m.enable_cpu_cache_flush, m.build_timeout, m.run_timeout, m.check_correctness);
  ar(m.skip_hopeless, m.skip_hopeless_factor);
}
void read(BodyReader& ar, measure::MeasureOptions& m, const Limits&) {
  int32_t number = 0, repeat = 0, min_repeat_ms = 0;
  ar(number, repeat, min_repeat_ms, m.cooldown_interval, m.enable_cpu_cache_flush, m.build_timeout,
     m.run_timeout, m.check_correctness);
  m.number = number;
  m.repeat = repeat;
  m.min_repeat_ms = min_repeat_ms;
  // Appended fields: absent from an older peer's body, which then keeps the defaults.
  if (ar.remaining() > 0) ar(m.skip_hopeless, m.skip_hopeless_factor);
}

void write(BodyWriter& ar, const measure::MeasureResult& m) {
  write_doubles(ar, m.costs);
  ar(int32_t(m.error_no));
  write_string(ar, m.error_msg);
  ar(m.all_cost, m.timestamp, m.build_seconds, m.run_seconds, m.cache_hit, uint8_t(m.policy));
  ar(m.timing_skipped);
}
void read(BodyReader& ar, measure::MeasureResult& m, const Limits&) {
  read_doubles(ar, m.costs);
  int32_t e = 0;
  ar(e);
  if (e < 0 || e > int32_t(measure::MeasureErrorNo::UnknownError)) malformed("unknown error_no");
  m.error_no = static_cast<measure::MeasureErrorNo>(e);
  read_string(ar, m.error_msg);
  ar(m.all_cost, m.timestamp, m.build_seconds, m.run_seconds, m.cache_hit);
  m.policy = read_policy(ar);
  if (ar.remaining() > 0) ar(m.timing_skipped);  // appended; an older daemon sends none
}

void write(BodyWriter& ar, const Hello& m) {
  ar(m.min_version, m.max_version);
  write_string(ar, m.client_name);
}
void read(BodyReader& ar, Hello& m, const Limits&) {
  ar(m.min_version, m.max_version);
  read_string(ar, m.client_name);
}

void write(BodyWriter& ar, const Welcome& m) {
  ar(m.version);
  write_string(ar, m.server_version);
  write_string(ar, m.cpu_model);
  ar(m.cores, m.workers, uint8_t(m.policy), m.max_body, m.max_states);
}
void read(BodyReader& ar, Welcome& m, const Limits&) {
  ar(m.version);
  read_string(ar, m.server_version);
  read_string(ar, m.cpu_model);
  ar(m.cores, m.workers);
  m.policy = read_policy(ar);
  ar(m.max_body, m.max_states);
}

void write(BodyWriter& ar, const MeasureRequest& m) {
  ar(m.request_id);
  write_string(ar, m.task);
  write_strings(ar, m.states);
  write(ar, m.options);
}
void read(BodyReader& ar, MeasureRequest& m, const Limits& limits) {
  ar(m.request_id);
  read_string(ar, m.task);
  read_strings(ar, m.states, limits.max_states);
  read(ar, m.options, limits);
}

void write(BodyWriter& ar, const MeasureResultMsg& m) {
  ar(m.request_id, m.index);
  write(ar, m.result);
}
void read(BodyReader& ar, MeasureResultMsg& m, const Limits& limits) {
  ar(m.request_id, m.index);
  read(ar, m.result, limits);
}

void write(BodyWriter& ar, const RequestDone& m) {
  ar(m.request_id, m.count, m.errors);
}
void read(BodyReader& ar, RequestDone& m, const Limits&) {
  ar(m.request_id, m.count, m.errors);
}

void write(BodyWriter&, const StatusRequest&) {}
void read(BodyReader&, StatusRequest&, const Limits&) {}

void write(BodyWriter& ar, const StatusReply& m) {
  ar(m.workers, m.workers_alive, m.queued, m.in_flight, m.completed, m.throughput, m.cache_hits,
     m.uptime, m.clients, m.requests, uint8_t(m.policy));
  ar(static_cast<uint64_t>(m.worker_list.size()));
  for (const auto& w : m.worker_list) ar(w.pid, uint8_t(w.state), w.jobs);
  write_string(ar, m.degraded);
}
void read(BodyReader& ar, StatusReply& m, const Limits& limits) {
  ar(m.workers, m.workers_alive, m.queued, m.in_flight, m.completed, m.throughput, m.cache_hits,
     m.uptime, m.clients, m.requests);
  m.policy = read_policy(ar);
  uint64_t n = 0;
  ar(n);
  constexpr size_t kWireSize = 4 + 1 + 8;
  if (n > limits.max_workers || n > ar.remaining() / kWireSize)
    malformed("worker count exceeds the body or the limit");
  m.worker_list.resize(n);
  for (auto& w : m.worker_list) {
    uint8_t s = 0;
    ar(w.pid, s, w.jobs);
    if (s > uint8_t(WorkerState::Running)) malformed("unknown worker state");
    w.state = static_cast<WorkerState>(s);
  }
  // Appended later: a reply from an older daemon ends before it.
  if (ar.remaining() > 0) read_string(ar, m.degraded);
}

void write(BodyWriter& ar, const Cancel& m) {
  ar(m.request_id);
}
void read(BodyReader& ar, Cancel& m, const Limits&) {
  ar(m.request_id);
}

void write(BodyWriter& ar, const ErrorMsg& m) {
  ar(m.code, m.request_id);
  write_string(ar, m.message);
}
void read(BodyReader& ar, ErrorMsg& m, const Limits&) {
  ar(m.code, m.request_id);
  read_string(ar, m.message);
}

void write(BodyWriter& ar, const WorkerReady& m) {
  ar(m.pid, m.version);
}
void read(BodyReader& ar, WorkerReady& m, const Limits&) {
  ar(m.pid, m.version);
}

namespace {

void write(BodyWriter& ar, const TaskDigest& d) {
  ar.saveBinary(d.sha256.data(), d.sha256.size());
  ar(d.size);
}
void read(BodyReader& ar, TaskDigest& d) {
  ar.load_binary(d.sha256.data(), d.sha256.size());
  ar(d.size);
}

void write(BodyWriter& ar, const TaskRef& t) {
  write(ar, t.digest);
  ar(t.has_bytes);
  write_string(ar, t.has_bytes ? std::string_view(t.bytes) : std::string_view());
}
void read(BodyReader& ar, TaskRef& t) {
  read(ar, t.digest);
  ar(t.has_bytes);
  read_string(ar, t.bytes);
  if (t.bytes.size() != (t.has_bytes ? t.digest.size : 0))
    throw ProtocolError(ErrorCode::MalformedBody, "task bytes do not match their digest's size");
}

}  // namespace

void write(BodyWriter& ar, const BuildJob& m) {
  ar(m.job_id);
  write(ar, m.task);
  write_string(ar, m.steps);
  write(ar, m.options);
}
void read(BodyReader& ar, BuildJob& m, const Limits& limits) {
  ar(m.job_id);
  read(ar, m.task);
  read_string(ar, m.steps);
  read(ar, m.options, limits);
}

void write(BodyWriter& ar, const RunJob& m) {
  ar(m.job_id);
  write(ar, m.task);
  write_string(ar, m.steps);
  write_string(ar, m.artifact);
  write(ar, m.options);
  ar(m.best_cost);
}
void read(BodyReader& ar, RunJob& m, const Limits& limits) {
  ar(m.job_id);
  read(ar, m.task);
  read_string(ar, m.steps);
  read_string(ar, m.artifact);
  read(ar, m.options, limits);
  ar(m.best_cost);
}

void write(BodyWriter& ar, const JobResult& m) {
  ar(m.job_id);
  write(ar, m.result);
  write_string(ar, m.artifact);
  ar(m.retire);
}
void read(BodyReader& ar, JobResult& m, const Limits& limits) {
  ar(m.job_id);
  read(ar, m.result, limits);
  read_string(ar, m.artifact);
  ar(m.retire);
}

void write(BodyWriter& ar, const TaskMissing& m) {
  ar(m.job_id);
  write(ar, m.digest);
}
void read(BodyReader& ar, TaskMissing& m, const Limits&) {
  ar(m.job_id);
  read(ar, m.digest);
}

std::string encode_error(ErrorCode code, std::string message, uint64_t request_id) {
  ErrorMsg e;
  e.code = static_cast<uint16_t>(code);
  e.request_id = request_id;
  e.message = std::move(message);
  return encode(e);
}

std::string check_options(const measure::MeasureOptions& o) {
  return measure::check_option_ranges(o);
}

}  // namespace mrd::proto

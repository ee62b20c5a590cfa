#include "common/broker/broker_job.h"

#include "common/broker/broker_keys.h"
#include "common/proto/codec.h"
#include "common/proto/protocol_error.h"

namespace mrd::broker {
namespace {

using proto::ErrorCode;
using proto::ProtocolError;

/// The value of `name` in a flat field/value array; nullptr when absent.
const std::string* field(const RedisReply& fields, std::string_view name) {
  for (size_t i = 0; i + 1 < fields.elements.size(); i += 2)
    if (fields.elements[i].str == name && fields.elements[i + 1].type == RedisReply::Type::String)
      return &fields.elements[i + 1].str;
  return nullptr;
}

const std::string& need(const RedisReply& fields, std::string_view name, size_t max_size) {
  const std::string* v = field(fields, name);
  if (!v) throw ProtocolError(ErrorCode::MalformedBody, "entry has no field " + std::string(name));
  if (v->size() > max_size)
    throw ProtocolError(ErrorCode::MalformedBody,
                        "field " + std::string(name) + " exceeds " + std::to_string(max_size) +
                            " bytes");
  return *v;
}

uint32_t parse_index(const std::string& s, uint64_t max_states) {
  if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos)
    throw ProtocolError(ErrorCode::MalformedBody, "bad index '" + s + "'");
  uint64_t v = std::stoull(s);
  if (v >= max_states)
    throw ProtocolError(ErrorCode::MalformedBody,
                        "index " + s + " is not below " + std::to_string(max_states));
  return static_cast<uint32_t>(v);
}

/// "<requester>:<serial>" with a valid requester name and a decimal serial.
void check_request_key(const std::string& key) {
  auto colon = key.rfind(':');
  bool ok = colon != std::string::npos && valid_name(std::string_view(key).substr(0, colon)) &&
            colon + 1 < key.size() &&
            key.find_first_not_of("0123456789", colon + 1) == std::string::npos;
  if (!ok) throw ProtocolError(ErrorCode::MalformedBody, "bad request key");
}

bool is_sha256_hex(const std::string& s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

RedisArgs job_fields(const JobEntry& job) {
  proto::MeasureRequest body;
  body.states = {job.state};
  body.options = job.options;
  return {"v",     "1",
          "req",   job.request,
          "reply", job.reply,
          "index", std::to_string(job.index),
          "task",  job.task_hash,
          "body",  proto::encode_body(body)};
}

RedisArgs result_fields(const ResultEntry& r) {
  proto::MeasureResultMsg body;
  body.index = r.index;
  body.result = r.result;
  return {"v",    "1",
          "req",  r.request,
          "index", std::to_string(r.index),
          "node", r.node,
          "body", proto::encode_body(body)};
}

JobEntry parse_job_route(const RedisReply& fields, const EntryLimits& limits) {
  JobEntry job;
  job.request = need(fields, "req", 160);
  check_request_key(job.request);
  job.reply = need(fields, "reply", 160);
  const std::string prefix = results_stream("");
  if (job.reply.rfind(prefix, 0) != 0 || !valid_name(std::string_view(job.reply).substr(prefix.size())))
    throw ProtocolError(ErrorCode::MalformedBody, "reply is not a result stream");
  job.index = parse_index(need(fields, "index", 10), limits.limits.max_states);
  return job;
}

void parse_job_body(const RedisReply& fields, const EntryLimits& limits, JobEntry& job) {
  const std::string* v = field(fields, "v");
  if (!v || *v != "1") throw ProtocolError(ErrorCode::MalformedBody, "unknown job version");
  job.task_hash = need(fields, "task", 64);
  if (!is_sha256_hex(job.task_hash))
    throw ProtocolError(ErrorCode::MalformedBody, "task is not an MD5 hex digest");
  auto req = proto::decode<proto::MeasureRequest>(need(fields, "body", limits.max_body),
                                                  limits.limits);
  if (req.states.size() != 1)
    throw ProtocolError(ErrorCode::MalformedBody, "a job holds exactly one state");
  job.state = std::move(req.states[0]);
  job.options = req.options;
}

ResultEntry parse_result(const RedisReply& fields, const EntryLimits& limits) {
  ResultEntry r;
  r.request = need(fields, "req", 160);
  r.index = parse_index(need(fields, "index", 10), limits.limits.max_states);
  r.node = need(fields, "node", 128);
  auto msg = proto::decode<proto::MeasureResultMsg>(need(fields, "body", limits.max_body),
                                                    limits.limits);
  if (msg.index != r.index) throw ProtocolError(ErrorCode::MalformedBody, "index mismatch");
  r.result = std::move(msg.result);
  return r;
}

std::vector<StreamEntry> stream_entries(const RedisReply& list) {
  std::vector<StreamEntry> out;
  for (const auto& e : list.elements) {
    if (e.type != RedisReply::Type::Array || e.elements.size() < 2) continue;
    if (e.elements[0].type != RedisReply::Type::String) continue;
    const RedisReply& f = e.elements[1];
    out.push_back({e.elements[0].str, f.type == RedisReply::Type::Array ? &f : nullptr});
  }
  return out;
}

}  // namespace mrd::broker

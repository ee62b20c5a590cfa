// The entries of the broker's streams. A job entry (on mrd:jobs:<device-key>) is one state of
// a request: who asked (request key, result stream), its index, the hash of the task (whose
// bytes are at mrd:task:<hash>) and a MeasureRequest body holding the one state and the
// options — the client protocol's own encoding, decoded with the same limits as a socket
// peer's frames. A result entry (on mrd:results:<requester>) carries the request key, the
// index, the node that measured it and a MeasureResult message body. The broker routes; it
// is not trusted: every field is checked before use, and a field above its limit is refused
// before it is decoded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/broker/redis_connection.h"
#include "common/measure/measure_types.h"
#include "common/proto/messages.h"

namespace mrd::broker {

struct JobEntry {
  std::string request;  ///< "<requester>:<serial>", unique per request
  std::string reply;    ///< the requester's result stream
  uint32_t index = 0;   ///< the state's index in its request
  std::string task_hash;  ///< SHA-256 hex of the task bytes
  std::string state;      ///< JSON text of the transform steps
  measure::MeasureOptions options;
};

struct ResultEntry {
  std::string request;
  uint32_t index = 0;
  std::string node;  ///< who measured it ("" when no node did)
  measure::MeasureResult result;
};

/// What a reader must not exceed.
struct EntryLimits {
  proto::Limits limits;
  uint32_t max_body = 1u << 20;  ///< largest encoded body, as --max-body
};

/// XADD's field/value list.
RedisArgs job_fields(const JobEntry& job);
RedisArgs result_fields(const ResultEntry& result);

/// The routing part of a job entry (request, reply, index), enough to answer it even when its
/// body does not decode. Throws proto::ProtocolError (MALFORMED_BODY) when it is unusable.
JobEntry parse_job_route(const RedisReply& fields, const EntryLimits& limits);
/// The rest of the job (task hash, state, options), into `job`; throws proto::ProtocolError.
void parse_job_body(const RedisReply& fields, const EntryLimits& limits, JobEntry& job);
/// Throws proto::ProtocolError.
ResultEntry parse_result(const RedisReply& fields, const EntryLimits& limits);

/// A stream entry of an XREAD/XREADGROUP/XAUTOCLAIM reply: [id, [field, value, ...]].
struct StreamEntry {
  std::string id;
  const RedisReply* fields = nullptr;  ///< nil for an entry deleted meanwhile
};
/// The entries of an array of [id, fields] pairs.
std::vector<StreamEntry> stream_entries(const RedisReply& list);

}  // namespace mrd::broker

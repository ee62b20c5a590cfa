// The messages of the client protocol (client <-> measurerd). Each has a fixed type number
// (MessageType) and a body laid out as proto-docs/protocol.md describes. Fields are only ever
// appended; a decoder ignores bytes after the fields it knows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/measure/measure_types.h"

namespace mrd::proto {

enum class MessageType : uint16_t {
  Hello = 1,
  Welcome = 2,
  MeasureRequest = 3,
  MeasureResult = 4,
  RequestDone = 5,
  StatusRequest = 6,
  StatusReply = 7,
  Cancel = 8,
  Error = 9,
  // daemon <-> worker
  WorkerReady = 64,
  BuildJob = 65,
  RunJob = 66,
  JobResult = 67,
  TaskMissing = 68,
};

/// Limits a receiver applies to counts inside a body (on top of the frame's length limit).
struct Limits {
  uint64_t max_states = 4096;  ///< inputs of one measure request
  uint64_t max_workers = 4096;
};

/// First message of a client: the protocol versions it speaks.
struct Hello {
  static constexpr MessageType kType = MessageType::Hello;
  uint16_t min_version = 1;
  uint16_t max_version = 1;
  std::string client_name;
};

/// The server's answer to Hello: the version chosen and what measures here.
struct Welcome {
  static constexpr MessageType kType = MessageType::Welcome;
  uint16_t version = 1;
  std::string server_version;
  std::string cpu_model;
  uint32_t cores = 0;
  uint32_t workers = 0;
  measure::TimingPolicy policy = measure::TimingPolicy::Exclusive;
  uint32_t max_body = 0;    ///< largest frame body the server accepts
  uint32_t max_states = 0;  ///< largest number of states in one request
};

/// Measure `states` (each a JSON text of transform steps) of the opaque serialized task.
struct MeasureRequest {
  static constexpr MessageType kType = MessageType::MeasureRequest;
  uint64_t request_id = 0;  ///< chosen by the client, unique among its requests in flight
  std::string task;         ///< measure::task_to_binary bytes
  std::vector<std::string> states;
  measure::MeasureOptions options;
};

/// The result of input `index` of a request; sent in index order.
struct MeasureResultMsg {
  static constexpr MessageType kType = MessageType::MeasureResult;
  uint64_t request_id = 0;
  uint32_t index = 0;
  measure::MeasureResult result;
};

/// Every input of the request has had its result.
struct RequestDone {
  static constexpr MessageType kType = MessageType::RequestDone;
  uint64_t request_id = 0;
  uint32_t count = 0;
  uint32_t errors = 0;  ///< results with error_no != NO_ERROR
};

struct StatusRequest {
  static constexpr MessageType kType = MessageType::StatusRequest;
};

enum class WorkerState : uint8_t { Starting = 0, Idle = 1, Building = 2, Running = 3 };
std::string_view worker_state_name(WorkerState s);

struct WorkerStatus {
  int32_t pid = 0;
  WorkerState state = WorkerState::Starting;
  uint64_t jobs = 0;  ///< jobs this worker process has finished
};

struct StatusReply {
  static constexpr MessageType kType = MessageType::StatusReply;
  uint32_t workers = 0;  ///< configured pool size
  uint32_t workers_alive = 0;
  uint64_t queued = 0;     ///< inputs waiting for a build or a run
  uint64_t in_flight = 0;  ///< jobs on workers now
  uint64_t completed = 0;  ///< inputs finished since start
  double throughput = 0;   ///< inputs per second over the last minute
  uint64_t cache_hits = 0;
  double uptime = 0;  ///< seconds
  uint32_t clients = 0;
  uint32_t requests = 0;  ///< requests not yet done
  measure::TimingPolicy policy = measure::TimingPolicy::Exclusive;
  std::vector<WorkerStatus> worker_list;
  /// Empty while the daemon is whole; else why it runs short (workers it gave up starting).
  std::string degraded;
};

/// Drop the request's inputs not yet started; each gets an UNKNOWN_ERROR "cancelled" result.
struct Cancel {
  static constexpr MessageType kType = MessageType::Cancel;
  uint64_t request_id = 0;
};

struct ErrorMsg {
  static constexpr MessageType kType = MessageType::Error;
  uint16_t code = 0;        ///< ErrorCode
  uint64_t request_id = 0;  ///< 0: about the connection
  std::string message;
};

}  // namespace mrd::proto

// The daemon's side of one worker's pipes as a pure state machine, with no I/O: it encodes the
// job frames it sends and decodes the bytes that come back, in any split, tracking the
// worker's state (starting, idle, building, running). A frame that is not what the state
// expects — a second WorkerReady, a result when no job is out or for another job, an unknown
// type, bad framing — breaks the link for good; the pool then ends that worker.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/proto/frame_decoder.h"
#include "common/proto/messages.h"
#include "daemon/server/worker_pool.h"

namespace mrd::daemon {

struct WorkerEvent {
  enum class Kind { Ready, Result, Broken };
  Kind kind = Kind::Ready;
  JobOutcome outcome;  ///< Result
  bool retire = false;  ///< Result: the worker asks to be replaced
  std::string why;      ///< Broken: what was wrong
};

class WorkerLink {
 public:
  explicit WorkerLink(uint32_t max_frame = proto::kDefaultMaxBody) : decoder_(max_frame) {}

  proto::WorkerState state() const { return state_; }
  bool broken() const { return broken_; }
  /// The job out now (Building or Running).
  uint64_t job_id() const { return job_id_; }
  Phase phase() const { return phase_; }

  /// The frame that starts `job` as job `job_id` on an idle worker; the state becomes
  /// Building or Running. Precondition: state() is Idle and the link is not broken.
  std::string start_job(uint64_t job_id, const Job& job);
  /// Consumes bytes from the worker; returns the events they complete, in order. After a
  /// Broken event the link takes nothing more.
  std::vector<WorkerEvent> feed(std::string_view bytes);
  /// True when the bytes fed so far end in the middle of a frame.
  bool mid_frame() const { return decoder_.mid_frame(); }

 private:
  WorkerEvent broken_event(std::string why);

  proto::FrameDecoder decoder_;
  proto::WorkerState state_ = proto::WorkerState::Starting;
  uint64_t job_id_ = 0;
  Phase phase_ = Phase::Build;
  bool broken_ = false;
};

}  // namespace mrd::daemon

// The daemon's side of one worker's pipes as a pure state machine, with no I/O: it encodes the
// job frames it sends and decodes the bytes that come back, in any split, tracking the
// worker's state (starting, idle, building, running). A frame that is not what the state
// expects — a second WorkerReady, a result when no job is out or for another job, an unknown
// type, bad framing — breaks the link for good; the pool then ends that worker.
//
// The link remembers which tasks the worker keeps (the same bounded, least-recently-used record
// as the worker's own cache), so a job carries its task's bytes only the first time; later ones
// name it by digest. A worker that says TaskMissing gets the job again with the bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/proto/frame_decoder.h"
#include "common/proto/messages.h"
#include "common/proto/task_digest.h"
#include "common/util/lru_map.h"
#include "daemon/server/worker_pool.h"

namespace mrd::daemon {

struct WorkerEvent {
  /// Resend: the worker has not got the job's task; `frame` is the job again with its bytes,
  /// to be written to the worker (the job stays out).
  enum class Kind { Ready, Result, Resend, Broken };
  Kind kind = Kind::Ready;
  std::string frame;    ///< Resend
  JobOutcome outcome;  ///< Result
  bool retire = false;  ///< Result: the worker asks to be replaced
  std::string why;      ///< Broken: what was wrong
};

class WorkerLink {
 public:
  /// `task_cache_bytes`: the byte limit of the worker's task cache (as it was started with).
  explicit WorkerLink(uint32_t max_frame = proto::kDefaultMaxBody,
                      uint64_t task_cache_bytes = proto::kDefaultWorkerTaskCacheMb << 20)
      : decoder_(max_frame), known_tasks_(proto::kWorkerTaskCacheEntries, task_cache_bytes) {}

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

  /// Task bytes put into frames so far, and how many times a job went again with them.
  uint64_t task_bytes_sent() const { return task_bytes_sent_; }
  uint64_t task_resends() const { return task_resends_; }
  /// Bytes of the task of the job out now.
  uint64_t job_task_size() const { return job_.task ? job_.task->bytes.size() : 0; }

 private:
  WorkerEvent broken_event(std::string why);
  std::string job_frame(bool with_task);

  struct Known {};
  proto::FrameDecoder decoder_;
  proto::WorkerState state_ = proto::WorkerState::Starting;
  uint64_t job_id_ = 0;
  Phase phase_ = Phase::Build;
  bool broken_ = false;
  Job job_;             ///< the job out now, for a resend
  bool job_had_task_ = false;  ///< its frame carried the task's bytes
  LruMap<proto::TaskDigest, Known, proto::TaskDigestHash> known_tasks_;
  uint64_t task_bytes_sent_ = 0;
  uint64_t task_resends_ = 0;
};

}  // namespace mrd::daemon

// The tasks a worker keeps decoded, by digest: at most kWorkerTaskCacheEntries of them and
// `--task-cache-mb` of their bytes, the least recently used dropped first (the daemon keeps the
// same record, so it knows which tasks a job may name without their bytes). A task whose bytes
// do not decode is kept too, as its error, so that its jobs fail without the bytes again.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/measure/task.h"
#include "common/proto/worker_messages.h"
#include "common/util/lru_map.h"

namespace mrd::worker {

class TaskCache {
 public:
  explicit TaskCache(uint64_t max_bytes)
      : entries_(proto::kWorkerTaskCacheEntries, max_bytes) {}

  /// True when the job's task is at hand: its bytes are in the frame or it is kept. Throws
  /// ProtocolError when the frame's bytes are not those its digest names.
  bool check(const proto::TaskRef& ref);
  /// The task of a job (precondition: check(ref)): decoded from the frame's bytes and kept, or
  /// the one kept under its digest, now the most recently used. Throws the decoding error of a
  /// task that does not decode (each time it is asked for).
  std::shared_ptr<const measure::Task> get(const proto::TaskRef& ref);

  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::shared_ptr<const measure::Task> task;  ///< null: it did not decode
    std::string error;
  };
  LruMap<proto::TaskDigest, Entry, proto::TaskDigestHash> entries_;
};

}  // namespace mrd::worker

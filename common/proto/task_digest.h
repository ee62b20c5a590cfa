// The name of a task's bytes on the daemon <-> worker link: their SHA-256 and their length. A
// worker keeps the tasks it has decoded by this name, so a job refers to a task it has seen
// instead of carrying its bytes again. SHA-256 because the cache is shared by every client of
// the daemon: no client can make up bytes that another client's task would be taken for.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace mrd::proto {

struct TaskDigest {
  std::array<uint8_t, 32> sha256{};
  uint64_t size = 0;  ///< bytes of the task

  bool operator==(const TaskDigest& o) const { return size == o.size && sha256 == o.sha256; }
  bool operator!=(const TaskDigest& o) const { return !(*this == o); }
  /// The first 16 hex digits of the hash, for logs.
  std::string short_hex() const;
};

TaskDigest task_digest(std::string_view bytes);

/// Tasks a worker keeps decoded, at most (least recently used first out); the daemon remembers
/// as many per worker.
inline constexpr size_t kWorkerTaskCacheEntries = 16;
/// Default of their total size in bytes (`measurerd --limit-task-cache-mb`).
inline constexpr uint64_t kDefaultWorkerTaskCacheMb = 128;

struct TaskDigestHash {
  size_t operator()(const TaskDigest& d) const {
    size_t h = 0;
    for (size_t i = 0; i < sizeof h; ++i) h = (h << 8) | d.sha256[i];
    return h;
  }
};

}  // namespace mrd::proto

#include "common/measure/workspace_pool.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>

#include <spdlog/spdlog.h>

namespace mrd::measure {

namespace {

constexpr size_t kPageBytes = 4096;  // TVM's kWorkspacePageSize: sizes round up to pages
constexpr size_t kMinAlignment = 64;

struct Pool {
  std::mutex mu;
  std::multimap<size_t, void*> kept;       // free blocks by size
  std::unordered_map<void*, size_t> used;  // blocks handed out, with their sizes
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: kernels may run during static destruction
  return *p;
}

}  // namespace

void* workspace_alloc(int64_t alignment, int64_t bytes) {
  if (bytes < 0 || alignment < 0 || static_cast<uint64_t>(alignment) > kPageBytes) return nullptr;
  size_t size = (std::max<size_t>(static_cast<size_t>(bytes), 1) + kPageBytes - 1) / kPageBytes * kPageBytes;
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mu);
  // The smallest kept block that is large enough, as TVM's pool picks.
  auto it = p.kept.lower_bound(size);
  if (it != p.kept.end()) {
    void* block = it->second;
    p.used.emplace(block, it->first);
    p.kept.erase(it);
    return block;
  }
  // As TVM's CPU device allocates a workspace page run: posix_memalign to 64 bytes (or more
  // when asked); size is a multiple of every alignment up to a page.
  void* block = std::aligned_alloc(std::max(static_cast<size_t>(alignment), kMinAlignment), size);
  if (block) p.used.emplace(block, size);
  spdlog::debug("workspace: {} bytes at {} (page offset {})", size, block,
                reinterpret_cast<uintptr_t>(block) % kPageBytes);
  return block;
}

void workspace_free(void* block) {
  if (!block) return;
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mu);
  auto it = p.used.find(block);
  if (it == p.used.end()) return;  // not ours: never handed out, so never freed
  p.kept.emplace(it->second, block);
  p.used.erase(it);
}

void release_workspace_pool() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mu);
  for (auto& [size, block] : p.kept) std::free(block);
  p.kept.clear();
}

WorkspacePoolStats workspace_pool_stats() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mu);
  WorkspacePoolStats s;
  s.kept_blocks = p.kept.size();
  for (auto& [size, block] : p.kept) s.kept_bytes += size;
  s.blocks_in_use = p.used.size();
  return s;
}

}  // namespace mrd::measure

#include "common/measure/workspace_pool.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace mrd::measure {

namespace {

constexpr size_t kPageBytes = 4096;  // TVM's kWorkspacePageSize: sizes round up to pages
constexpr size_t kMinAlignment = 64;

struct Block {
  void* data = nullptr;
  size_t size = 0;
};

// One thread's pool, as TVM's WorkspacePool (one per thread: dmlc::ThreadLocalStore): the kept
// blocks by increasing size and the blocks handed out, in the order they were, both vectors,
// so that an allocation and its free cost a few compares and no lock or node allocation. A
// kernel frees a block on the thread that took it (generated code allocates and frees within
// one scope, which one thread runs).
struct ThreadPool {
  std::vector<Block> kept;  // increasing size
  std::vector<Block> used;  // in allocation order: the last one is usually freed first
  ThreadPool();
  ~ThreadPool();
  void free_kept() {
    for (const Block& b : kept) std::free(b.data);
    kept.clear();
  }
};

// Every thread's pool, for release_workspace_pool() and the stats, which run when no kernel
// does (the last kernel gone, or a test between calls). Taken only when a thread's pool is
// made or goes, and by those two.
struct Registry {
  std::mutex mu;
  std::vector<ThreadPool*> pools;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: threads may exit during static destruction
  return *r;
}

ThreadPool::ThreadPool() {
  std::lock_guard<std::mutex> lock(registry().mu);
  registry().pools.push_back(this);
}

ThreadPool::~ThreadPool() {
  free_kept();
  std::lock_guard<std::mutex> lock(registry().mu);
  auto& pools = registry().pools;
  pools.erase(std::remove(pools.begin(), pools.end(), this), pools.end());
}

ThreadPool& this_thread_pool() {
  thread_local ThreadPool pool;
  return pool;
}

}  // namespace

void* workspace_alloc(int64_t alignment, int64_t bytes) {
  if (bytes < 0 || alignment < 0 || static_cast<uint64_t>(alignment) > kPageBytes) return nullptr;
  size_t size = (std::max<size_t>(static_cast<size_t>(bytes), 1) + kPageBytes - 1) / kPageBytes * kPageBytes;
  ThreadPool& p = this_thread_pool();
  // The smallest kept block that is large enough, as TVM's pool picks.
  auto it = std::lower_bound(p.kept.begin(), p.kept.end(), size,
                             [](const Block& b, size_t s) { return b.size < s; });
  Block block;
  if (it != p.kept.end()) {
    block = *it;
    p.kept.erase(it);
  } else {
    // As TVM's CPU device allocates a workspace page run: posix_memalign to 64 bytes (or more
    // when asked); size is a multiple of every alignment up to a page.
    block.data = std::aligned_alloc(std::max(static_cast<size_t>(alignment), kMinAlignment), size);
    if (!block.data) return nullptr;
    block.size = size;
    spdlog::debug("workspace: {} bytes at {} (page offset {})", size, block.data,
                  reinterpret_cast<uintptr_t>(block.data) % kPageBytes);
  }
  p.used.push_back(block);
  return block.data;
}

void workspace_free(void* data) {
  if (!data) return;
  ThreadPool& p = this_thread_pool();
  auto it =
      std::find_if(p.used.rbegin(), p.used.rend(), [&](const Block& b) { return b.data == data; });
  if (it == p.used.rend()) return;  // not this thread's: never handed out here, so never freed
  Block block = *it;
  p.used.erase(std::next(it).base());
  p.kept.insert(std::upper_bound(p.kept.begin(), p.kept.end(), block.size,
                                 [](size_t s, const Block& b) { return s < b.size; }),
                block);
}

void release_workspace_pool() {
  std::lock_guard<std::mutex> lock(registry().mu);
  for (ThreadPool* p : registry().pools) p->free_kept();
}

WorkspacePoolStats workspace_pool_stats() {
  std::lock_guard<std::mutex> lock(registry().mu);
  WorkspacePoolStats s;
  for (const ThreadPool* p : registry().pools) {
    s.kept_blocks += p->kept.size();
    for (const Block& b : p->kept) s.kept_bytes += b.size;
    s.blocks_in_use += p->used.size();
  }
  return s;
}

}  // namespace mrd::measure

#include "common/measure/argument_cache.h"

#include <utility>

namespace mrd::measure {

std::unique_ptr<HostArgs> ArgumentCache::take(const std::string& task_key, const dag::ComputeDAG& dag) {
  std::unique_ptr<HostArgs> args;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (kept_ && key_ == task_key) args = std::move(kept_);
    else kept_.reset();  // another task's: freed before this one's are allocated
  }
  if (args) {
    args->reset_outputs();
    return args;
  }
  return std::make_unique<HostArgs>(dag);
}

void ArgumentCache::put_back(const std::string& task_key, std::unique_ptr<HostArgs> args) {
  if (!args || !args->inputs_unchanged()) return;
  std::lock_guard<std::mutex> lock(mu_);
  key_ = task_key;
  kept_ = std::move(args);
}

}  // namespace mrd::measure

#include "common/measure/compiler_warm_up.h"

#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>

#include "common/codegen/target.h"
#include "common/measure/pipeline.h"

namespace mrd::measure {

namespace {

// matmul 64x64x64: i split by 8, j by 16, reordered to (i.0, j.0, k, i.1, j.1), i.1 unrolled,
// j.1 vectorized, auto_unroll 16: loops, vector loads and fma, a reduction.
constexpr const char* kWarmUpSteps =
    R"([["SP",2,0,64,[8],1],["SP",2,2,64,[16],1],["RE",2,[0,2,4,1,3]],)"
    R"(["AN",2,3,1],["AN",2,4,2],["PR",2,0,"auto_unroll_max_step$16"]])";

// Under $TMPDIR (else /tmp): a served worker's private temporary directory.
std::string make_temp_dir() {
  std::error_code ec;
  std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  if (ec) return {};
  std::string pattern = (tmp / "measurerd-warm-up-XXXXXX").string();
  return ::mkdtemp(pattern.data()) ? pattern : std::string();
}

bool is_llvm(const std::string& target) {
  try {
    return codegen::parse_target(target).kind == codegen::TargetKind::LLVM;
  } catch (const std::exception&) {
    return false;  // the task's own build reports a bad target
  }
}

}  // namespace

double warm_up_llvm(const std::string& target) {
  if (!is_llvm(target)) return 0;
  auto start = std::chrono::steady_clock::now();
  std::string dir = make_temp_dir();
  if (dir.empty()) {
    spdlog::warn("LLVM warm-up: cannot make a temporary directory");
    return -1;
  }
  Task task;
  task.workload = registry::FunctionWorkload{
      "matmul", {int64_t{64}, int64_t{64}, int64_t{64}, std::string("float32")}};
  task.target = target;
  task.layout_rewrite_option = 0;
  BuildConfig config;
  config.cache_dir = dir;
  BuildOutput out = build_candidate(task, kWarmUpSteps, MeasureOptions{}, config);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (out.result.error_no != MeasureErrorNo::NoError) {
    spdlog::warn("LLVM warm-up for \"{}\" did not build: {}", target, out.result.error_msg);
    return -1;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  spdlog::debug("LLVM warm-up for \"{}\": {:.1f} ms", target, seconds * 1e3);
  return seconds;
}

}  // namespace mrd::measure

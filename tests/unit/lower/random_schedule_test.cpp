// Differential test: many pseudo-random schedules (splits with non-divisible lengths, any
// loop order, fuses, annotations, cache_write, rfactor, compute_at at random loops) of small
// workloads, each lowered and checked against the reference interpreter.
#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "common/schedule/transform_steps.h"
#include "common/util/error.h"
#include "tests/unit/lower/lower_test_util.h"

using namespace mrd;
using namespace mrd::schedule;

namespace {

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  bool coin() { return pick(2) == 1; }
  std::mt19937& rng() { return rng_; }

 private:
  std::mt19937 rng_;
};

/// Splits every iterator of `stage` (whose iterators are `iters`, with extents) at random,
/// then shuffles the loop order; returns the new iterator count.
int split_and_reorder(Gen& g, std::vector<Step>& steps, int stage, std::vector<int64_t> extents) {
  int id = 0;
  for (int64_t ext : extents) {
    int parts = g.pick(3);  // 0, 1 or 2 extra loops
    if (parts == 0) {
      ++id;
      continue;
    }
    std::vector<int64_t> lengths;
    for (int p = 0; p < parts; ++p) lengths.push_back(1 + g.pick(4));
    steps.push_back(SplitStep{stage, id, ext, lengths, g.pick(4) != 0});
    id += parts + 1;
  }
  std::vector<int> order(id);
  for (int i = 0; i < id; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), g.rng());
  steps.push_back(ReorderStep{stage, order});
  return id;
}

}  // namespace

TEST_CASE("random schedules of matmul_add lower correctly", "[lower][random]") {
  auto dag = lower::testing::builtin_dag(
      "matmul_add", {int64_t(10), int64_t(7), int64_t(9), std::string("float32")});
  int lowered = 0;
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    Gen g(seed);
    std::vector<Step> steps;
    int mm = 2, out = 4;
    bool chw = g.coin();
    if (chw) {
      steps.push_back(CacheWriteStep{2, "local"});
      out = 5;  // matmul.local = 2, matmul = 3, C = 4, out = 5
    }
    int mm_iters = split_and_reorder(g, steps, mm, {10, 9, 7});
    int out_iters = split_and_reorder(g, steps, out, {10, 9});
    if (chw) {
      int copy_iters = split_and_reorder(g, steps, 3, {10, 9});
      steps.push_back(ComputeAtStep{2, 3, g.pick(copy_iters)});
      if (g.coin()) steps.push_back(ComputeAtStep{3, out, g.pick(out_iters)});
    } else if (g.coin()) {
      steps.push_back(ComputeAtStep{mm, out, g.pick(out_iters)});
    }
    if (out_iters >= 2 && g.coin()) {
      steps.push_back(FuseStep{out, {0, 1}});  // a stage computed at loop 0 or 1 follows
      --out_iters;
    }
    if (g.coin()) steps.push_back(AnnotationStep{out, 0, 3});
    if (g.coin()) steps.push_back(AnnotationStep{mm, mm_iters - 1, 2});
    if (g.coin()) steps.push_back(AnnotationStep{mm, g.pick(mm_iters), 1});
    if (g.coin()) {
      steps.push_back(PragmaStep{mm, 0, "auto_unroll_max_step$" + std::to_string(g.pick(3) * 32)});
    }
    INFO("seed " << seed << ": " << steps_to_json(steps).dump());
    try {
      lower::testing::check_lowering(dag, steps, 1e-5, seed);
      ++lowered;
    } catch (const UserError& e) {
      // Only schedules TVM rejects as well: nested parallel loops.
      INFO(e.what());
      CHECK(std::string(e.what()).find("nested parallel") != std::string::npos);
    }
  }
  CHECK(lowered >= 50);
}

TEST_CASE("random rfactor schedules of softmax lower correctly", "[lower][random]") {
  auto dag = lower::testing::builtin_dag("softmax", {int64_t(4), int64_t(23)});
  for (uint32_t seed = 1; seed <= 30; ++seed) {
    Gen g(seed);
    std::vector<Step> steps;
    // T_softmax_expsum = stage 3: split k, factor one piece out at position 0 or 1.
    std::vector<int64_t> lengths{1 + g.pick(6)};
    if (g.coin()) lengths.push_back(1 + g.pick(3));
    steps.push_back(SplitStep{3, 1, 23, lengths, g.coin()});
    int pieces = static_cast<int>(lengths.size()) + 1;
    steps.push_back(RfactorStep{3, 1 + g.pick(pieces), g.pick(2)});
    // Stages now: A, maxelem, exp, expsum.rf, expsum.repl, norm.
    int norm_iters = 2;
    if (g.coin()) {
      steps.push_back(SplitStep{5, 1, 23, {1 + g.pick(5)}, true});
      norm_iters = 3;
    }
    if (g.coin()) steps.push_back(ComputeAtStep{4, 5, g.pick(std::min(norm_iters, 1) + 0)});
    if (g.coin()) steps.push_back(ComputeAtStep{1, 2, g.pick(2)});
    if (g.coin()) steps.push_back(AnnotationStep{5, 0, 3});
    INFO("seed " << seed << ": " << steps_to_json(steps).dump());
    lower::testing::check_lowering(dag, steps, 1e-5, seed);
  }
}

TEST_CASE("random schedules of conv2d_nchw lower correctly", "[lower][random]") {
  auto dag = lower::testing::builtin_dag(
      "conv2d_nchw", {int64_t(1), int64_t(3), int64_t(7), int64_t(7), int64_t(4), int64_t(3),
                      int64_t(3), int64_t(1), int64_t(1)});
  // data = 0, pad_temp = 1, kernel = 2, conv2d_nchw = 3.
  for (uint32_t seed = 1; seed <= 24; ++seed) {
    Gen g(seed);
    std::vector<Step> steps;
    int conv = 3;
    bool chw = g.coin();
    if (chw) steps.push_back(CacheWriteStep{3, "local"});  // conv.local = 3, conv = 4
    int iters = split_and_reorder(g, steps, 3, {1, 4, 7, 7, 3, 3, 3});
    int mode = g.pick(3);
    if (chw) {
      int copy_iters = split_and_reorder(g, steps, 4, {1, 4, 7, 7});
      steps.push_back(ComputeAtStep{3, 4, g.pick(copy_iters)});
      conv = 4;
      if (mode == 1) steps.push_back(ComputeAtStep{1, 3, g.pick(iters)});
    } else if (mode == 1) {
      steps.push_back(ComputeAtStep{1, conv, g.pick(iters)});
    }
    if (mode == 2) steps.push_back(ComputeInlineStep{1});
    if (g.coin()) steps.push_back(AnnotationStep{conv, 0, 3});
    INFO("seed " << seed << ": " << steps_to_json(steps).dump());
    lower::testing::check_lowering(dag, steps, 1e-5, seed);
  }
}

TEST_CASE("arbitrary step lists fail only with UserErrors, and what lowers is right",
          "[lower][random]") {
  auto dag = lower::testing::builtin_dag("dense_bias_relu", {int64_t(4), int64_t(6), int64_t(5)});
  auto sm = lower::testing::builtin_dag("softmax", {int64_t(3), int64_t(7)});
  Gen g(12345);
  int ok = 0, rejected = 0;
  for (int n = 0; n < 3000; ++n) {
    std::vector<Step> steps;
    int count = 1 + g.pick(6);
    auto small = [&] { return g.pick(8); };
    for (int i = 0; i < count; ++i) {
      switch (g.pick(13)) {
        case 0:
          steps.push_back(AnnotationStep{small(), small(), g.pick(4)});
          break;
        case 1:
          steps.push_back(FuseStep{small(), {small(), small()}});
          break;
        case 2:
          steps.push_back(PragmaStep{small(), small(), "auto_unroll_max_step$16"});
          break;
        case 3:
          steps.push_back(ReorderStep{small(), {small(), small(), small()}});
          break;
        case 4:
          steps.push_back(SplitStep{small(), small(), 0, {1 + g.pick(5), 1 + g.pick(3)}, g.coin()});
          break;
        case 5:
          steps.push_back(FollowSplitStep{small(), small(), g.pick(i + 1), 1 + g.pick(3)});
          break;
        case 6:
          steps.push_back(
              FollowFusedSplitStep{small(), small(), {g.pick(i + 1)}, g.pick(2), g.coin()});
          break;
        case 7:
          steps.push_back(ComputeAtStep{small(), small(), small()});
          break;
        case 8:
          steps.push_back(ComputeInlineStep{small()});
          break;
        case 9:
          steps.push_back(ComputeRootStep{small()});
          break;
        case 10:
          steps.push_back(CacheWriteStep{small(), "local"});
          break;
        case 11:
          steps.push_back(RfactorStep{small(), small(), g.pick(3)});
          break;
        default:
          steps.push_back(StorageAlignStep{small(), small(), 4, 0});
          break;
      }
    }
    const dag::ComputeDAG& d = g.coin() ? dag : sm;
    try {
      lower::lower(d, steps);
      ++ok;
      INFO("steps " << steps_to_json(steps).dump());
      lower::testing::check_lowering(d, steps, 1e-5, n);  // what lowers must be right
    } catch (const UserError&) {
      ++rejected;
    } catch (const std::exception& e) {
      FAIL("steps " << steps_to_json(steps).dump() << " threw a non-user error: " << e.what());
    }
  }
  INFO(ok << " lowered, " << rejected << " rejected");
  CHECK(ok > 100);
  CHECK(rejected > 100);
}

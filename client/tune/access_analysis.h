// How the stages of a search state read each other, as auto_scheduler's AccessAnalyzer: the
// index lists of every read, and from them which stages need multi-level tiling, which are
// strictly inlineable element-wise ops, which are outputs, and which consumer is
// "element-wise matched" to a producer. It looks at the state's current stages (after
// cache_write and rfactor) and their ops' own bodies; consumers are followed through inlined
// stages.
#pragma once

#include <map>
#include <set>
#include <vector>

#include "client/tune/search_state.h"
#include "common/ir/expr.h"

namespace mrd::tune {

class AccessAnalysis {
 public:
  explicit AccessAnalysis(const SearchState& st);

  /// A compute stage whose reads leave out a spatial axis twice (or once with a reduction):
  /// matmul and convolution, not element-wise or plain reductions.
  bool needs_multi_level_tiling(int stage_id) const;
  /// Every read is injective in the stage's axes, in order and without duplicates; no exp,
  /// no branch (select / if_then_else).
  bool is_strictly_inlineable(int stage_id) const;
  /// Read by no other stage.
  bool is_output(int stage_id) const;
  /// Same output shape along the chain from stage_id to target, each link a single consumer
  /// that reads its producer at exactly its own axes.
  bool elementwise_match(int stage_id, int target_stage_id) const;
  /// Stages that read stage_id, looking through inlined stages.
  std::set<int> consumers(int stage_id) const;

 private:
  using Accesses = std::vector<std::vector<ir::Expr>>;
  const SearchState* st_;
  /// read_from_[c][p]: the index lists with which stage c reads stage p.
  std::vector<std::map<int, Accesses>> read_from_;
  /// read_by_[p][c]: the same, keyed by producer.
  std::vector<std::map<int, Accesses>> read_by_;
  std::vector<bool> has_branch_;
  std::vector<bool> has_expensive_;
};

}  // namespace mrd::tune

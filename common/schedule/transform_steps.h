// auto_scheduler's transform steps, one struct per kind with the fields of TVM's record form
// (`["SP", 2, 0, 512, [16, 2, 2], 1]`), and their JSON reading and writing. A step list is a
// schedule: steps_from_json(steps_to_json(s)) == s and the JSON round trip is byte-identical.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

namespace mrd::schedule {

/// AN annotation codes as in TVM's IteratorAnnotation (4+ are GPU-only).
enum class IterAnnotation : int { None = 0, Unroll = 1, Vectorize = 2, Parallel = 3 };

struct AnnotationStep {  // AN
  int stage_id, iter_id;
  int annotation;
};
struct FuseStep {  // FU
  int stage_id;
  std::vector<int> fused_ids;
};
struct PragmaStep {  // PR
  int stage_id, iter_id;
  std::string pragma_type;
};
struct ReorderStep {  // RE
  int stage_id;
  std::vector<int> after_ids;
};
struct SplitStep {  // SP; extent 0 = unknown; lengths outer→inner
  int stage_id, iter_id;
  int64_t extent;
  std::vector<int64_t> lengths;
  bool inner_to_outer;
};
struct FollowSplitStep {  // FSP
  int stage_id, iter_id, src_step_id, n_split;
};
struct FollowFusedSplitStep {  // FFSP
  int stage_id, iter_id;
  std::vector<int> src_step_ids;
  int level;
  bool factor_or_nparts;
};
struct StorageAlignStep {  // SA: accepted, no effect on CPU code
  int stage_id, iter_id, factor, offset;
};
struct ComputeAtStep {  // CA
  int stage_id, target_stage_id, target_iter_id;
};
struct ComputeInlineStep {  // CI
  int stage_id;
};
struct ComputeRootStep {  // CR
  int stage_id;
};
struct CacheReadStep {  // CHR: parsed, rejected when applied (GPU sketches only)
  int stage_id;
  std::string scope_name;
  std::vector<int> reader_stage_ids;
};
struct CacheWriteStep {  // CHW
  int stage_id;
  std::string scope_name;
};
struct RfactorStep {  // RF
  int stage_id, iter_id, factor_iter_id;
};

using Step =
    std::variant<AnnotationStep, FuseStep, PragmaStep, ReorderStep, SplitStep, FollowSplitStep,
                 FollowFusedSplitStep, StorageAlignStep, ComputeAtStep, ComputeInlineStep,
                 ComputeRootStep, CacheReadStep, CacheWriteStep, RfactorStep>;

/// The record name of a step: "SP", "CA", ...
std::string step_name(const Step& s);
/// The stage a step applies to.
int step_stage_id(const Step& s);

/// Parses TVM's record syntax. Malformed input -> UserError naming the step index and kind.
std::vector<Step> steps_from_json(const nlohmann::json& steps);
/// The exact inverse of steps_from_json.
nlohmann::json steps_to_json(const std::vector<Step>& steps);

/// The split lengths an FSP step stands for (first n-1 of the source split, then the product
/// of the rest). UserError when the source is not a split or n_split is out of range.
std::vector<int64_t> follow_split_lengths(const FollowSplitStep& s, const std::vector<Step>& steps);
/// The one length an FFSP step stands for: product of lengths[level] of its source splits.
int64_t follow_fused_split_length(const FollowFusedSplitStep& s, const std::vector<Step>& steps);

}  // namespace mrd::schedule

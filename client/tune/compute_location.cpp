#include "client/tune/compute_location.h"

#include "client/tune/state_queries.h"

namespace mrd::tune {

using namespace schedule;

int single_consumer_id(const SearchState& st, const AccessAnalysis& aa, int stage_id) {
  std::set<int> consumers = aa.consumers(stage_id);
  if (consumers.empty()) return -1;
  if (consumers.size() == 1) return *consumers.begin();
  int common_root = -1;
  for (int c : consumers) {
    int root = c;
    if (st.stage(c).attach == AttachKind::At) root = attach_point(st, c).first;
    if (common_root == -1) {
      common_root = root;
    } else if (common_root != root) {
      return -1;
    }
  }
  return common_root;
}

namespace {

bool ends_with_outer_level(const std::string& name) {
  // Our split pieces are named "<parent>.outer"; TVM's first-level pieces end in ".0".
  const std::string suffix = ".outer";
  return name.size() >= suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_unrolled(const Stage& s, const IterVarNode* iv) {
  auto it = s.annotations.find(iv);
  return it != s.annotations.end() && it->second == IterAnnotation::Unroll;
}

/// Leaf extents, -1 where unknown.
std::vector<int64_t> known_extents(const Stage& s, KnownExtents known) {
  std::vector<int64_t> ext = static_leaf_extents(s);
  if (known == KnownExtents::All) return ext;
  for (size_t i = 0; i < ext.size(); ++i) {
    bool root = false;
    for (const IterVarRef& r : s.root_iters) root = root || r == s.leaf_iters[i];
    if (!root) ext[i] = -1;
  }
  return ext;
}

}  // namespace

std::vector<std::pair<int, int>> compute_location_candidates(const SearchState& st,
                                                             const AccessAnalysis& aa, int stage_id,
                                                             KnownExtents known) {
  int target_id = single_consumer_id(st, aa, stage_id);
  if (target_id < 0) return {};
  const Stage& target = st.stage(target_id);
  std::vector<std::pair<int, int>> out;
  bool target_at_other = target.attach == AttachKind::At;
  bool target_tiled = is_tiled(target);
  std::vector<int64_t> ext = known_extents(target, known);

  bool visited_reduce = false;
  for (int i = 0; i < static_cast<int>(target.leaf_iters.size()); ++i) {
    const IterVarNode& iv = *target.leaf_iters[i];
    if (is_reduce_iter(iv)) {
      visited_reduce = true;
      if (!target_tiled) break;  // do not go into the reduction
    } else if (visited_reduce) {
      break;  // do not go into the inner tile
    }
    if (is_unrolled(target, &iv)) break;
    if (ext[i] == 1) continue;
    if (target_at_other && !is_reduce_iter(iv) && ends_with_outer_level(iv.name())) continue;
    out.emplace_back(target_id, i);
    if (!attached_stages(st, target_id, i).empty()) break;
  }

  if (target_at_other) {
    int tt_id = attach_point(st, target_id).first;
    const Stage& tt = st.stage(tt_id);
    std::vector<int64_t> tt_ext = known_extents(tt, known);
    for (int i = 0; i < static_cast<int>(tt.leaf_iters.size()); ++i) {
      const IterVarNode& iv = *tt.leaf_iters[i];
      if (is_reduce_iter(iv) || !attached_stages(st, tt_id, i).empty()) break;
      if (is_unrolled(tt, &iv)) break;
      if (tt_ext[i] == 1) continue;
      out.emplace_back(tt_id, i);
    }
  }
  return out;
}

}  // namespace mrd::tune

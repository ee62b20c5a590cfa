#include "client/tune/multi_level_tiling.h"

#include <cctype>

#include "client/tune/state_queries.h"
#include "common/util/error.h"

namespace mrd::tune {

SearchState multi_level_tiling(const SearchState& st, int stage_id, const std::string& structure,
                               std::vector<int>* spatial_split_step_ids) {
  size_t n_space = 0, n_reduce = 0;
  for (char c : structure) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    MRD_CHECK(l == 's' || l == 'r', "bad tiling structure ", structure);
    (l == 's' ? n_space : n_reduce)++;
  }
  std::vector<std::vector<int>> space_levels(n_space), reduce_levels(n_reduce);
  SearchState out = st;
  const schedule::Stage& stage = st.stage(stage_id);
  int pos = 0;  // where the current original iterator sits now
  for (const auto& iv : stage.leaf_iters) {
    bool reduce = is_reduce_iter(*iv);
    size_t n = reduce ? n_reduce : n_space;
    MRD_USER_CHECK(n >= 1, "tiling structure ", structure, " has no level for iterator ",
                   iv->name());
    auto& levels = reduce ? reduce_levels : space_levels;
    if (n == 1) {
      levels[0].push_back(pos);
      ++pos;
      continue;
    }
    int step = out.split(stage_id, pos, std::vector<int64_t>(n - 1, 1));
    if (!reduce) spatial_split_step_ids->push_back(step);
    for (size_t i = 0; i < n; ++i) levels[i].push_back(pos + static_cast<int>(i));
    pos += static_cast<int>(n);
  }
  std::vector<int> order;
  size_t s = 0, r = 0;
  for (char c : structure) {
    auto& level =
        std::tolower(static_cast<unsigned char>(c)) == 's' ? space_levels[s++] : reduce_levels[r++];
    order.insert(order.end(), level.begin(), level.end());
  }
  out.reorder(stage_id, order);
  return out;
}

SearchState follow_tiling(const SearchState& st, int stage_id,
                          const std::vector<int>& split_step_ids, int n_split) {
  MRD_CHECK(n_split >= 1 && n_split <= 3, "follow tiling with ", n_split, " levels");
  MRD_USER_CHECK(st.num_iters(stage_id) == static_cast<int>(split_step_ids.size()), "stage ",
                 st.stage(stage_id).op->name, " has ", st.num_iters(stage_id),
                 " iterators but the tiled producer has ", split_step_ids.size(),
                 " spatial splits");
  SearchState out = st;
  std::vector<std::vector<int>> levels(n_split + 1);
  for (size_t k = 0; k < split_step_ids.size(); ++k) {
    int pos = static_cast<int>(k) * (n_split + 1);
    out.follow_split(stage_id, pos, split_step_ids[k], n_split);
    for (int i = 0; i <= n_split; ++i) levels[i].push_back(pos + i);
  }
  std::vector<int> order;
  for (const auto& l : levels) order.insert(order.end(), l.begin(), l.end());
  out.reorder(stage_id, order);
  return out;
}

}  // namespace mrd::tune

#include "client/tune/init_rules.h"

#include <string>

#include "client/tune/access_analysis.h"
#include "client/tune/compute_location.h"
#include "client/tune/state_queries.h"
#include "common/util/error.h"

namespace mrd::tune {

using namespace schedule;

namespace {

bool is_annotated(const Stage& s, int iter_id) {
  return s.annotations.count(s.leaf_iters.at(iter_id).get()) > 0;
}

bool skipped(const Stage& s) {
  return s.is_placeholder() || s.attach == AttachKind::Inline;
}

/// TVM's annotate_parallel: fuse and parallelize the outer spatial loops of stage_id from
/// iter_offset; when they give no parallelism and a stage is attached right there, recurse
/// into the attached stages and the loops below.
void annotate_parallel(SearchState& st, const std::vector<std::vector<int64_t>>& ext, int stage_id,
                       int iter_offset, int num_cores) {
  const int n_iters = st.num_iters(stage_id);
  std::vector<int> to_fuse;
  int64_t degree = 1;
  int iter_id = iter_offset;
  for (; iter_id < n_iters; ++iter_id) {
    const Stage& s = st.stage(stage_id);
    if (is_reduce_iter(*s.leaf_iters[iter_id]) || is_annotated(s, iter_id)) break;
    to_fuse.push_back(iter_id);
    degree *= ext[stage_id][iter_id];
    if (degree > int64_t{num_cores} * 16) break;
    if (!attached_stages(st, stage_id, iter_id).empty()) break;
  }
  if (degree == 1 && iter_id < n_iters) {
    std::vector<int> attached = attached_stages(st, stage_id, iter_id);
    if (!attached.empty()) {
      for (int a : attached) annotate_parallel(st, ext, a, 0, num_cores);
      annotate_parallel(st, ext, stage_id, iter_id + 1, num_cores);
    }
  }
  if (to_fuse.empty()) return;
  if (to_fuse.size() > 1) st.fuse(stage_id, to_fuse);
  st.annotate(stage_id, to_fuse.front(), IterAnnotation::Parallel);
}

}  // namespace

bool init_fill_tile_size(SearchState& st, Rng& rng, SplitFactorization& memo) {
  std::vector<Step> steps = st.steps();
  for (Step& step : steps) {
    auto* sp = std::get_if<SplitStep>(&step);
    if (sp == nullptr || sp->extent <= 0) continue;
    const auto& schemes =
        memo.schemes(sp->extent, static_cast<int>(sp->lengths.size()), kMaxInnermostSplitFactor);
    if (schemes.empty()) return false;
    sp->lengths = schemes[rand_index(rng, schemes.size())];
  }
  try {
    st = SearchState(st.dag(), std::move(steps));
  } catch (const UserError&) {
    return false;
  }
  return true;
}

bool init_change_compute_location(SearchState& st, Rng& rng) {
  try {
    for (int id = st.num_stages() - 1; id >= 0; --id) {
      const Stage& s = st.stage(id);
      if (skipped(s)) continue;
      AccessAnalysis aa(st);
      if (is_tiled(s) || aa.needs_multi_level_tiling(id)) continue;
      std::vector<std::pair<int, int>> cands =
          compute_location_candidates(st, aa, id, KnownExtents::RootsOnly);
      size_t choice = rand_index(rng, cands.size() + 2);
      if (choice == 0) {
        if (!has_reduce_iter(s) && attach_point(st, id).first >= 0) st.compute_inline(id);
      } else if (choice == 1) {
        st.compute_root(id);
      } else {
        const auto& c = cands[choice - 2];
        st.compute_at(id, c.first, c.second);
      }
    }
    inferred_leaf_extents(st);
  } catch (const UserError&) {
    return false;
  }
  return true;
}

bool init_parallel(SearchState& st, int num_cores) {
  try {
    std::vector<std::vector<int64_t>> ext = inferred_leaf_extents(st);
    for (int id = 0; id < st.num_stages(); ++id) {
      const Stage& s = st.stage(id);
      if (s.is_placeholder() || s.attach != AttachKind::Root) continue;
      annotate_parallel(st, ext, id, 0, num_cores);
    }
  } catch (const UserError&) {
    return false;
  }
  return true;
}

bool init_unroll(SearchState& st, Rng& rng) {
  try {
    for (int id = 0; id < st.num_stages(); ++id) {
      const Stage& s = st.stage(id);
      if (skipped(s) || !has_reduce_iter(s)) continue;
      int value = kAutoUnrollConfigs[rand_index(rng, std::size(kAutoUnrollConfigs))];
      st.pragma(id, 0, "auto_unroll_max_step$" + std::to_string(value));
    }
  } catch (const UserError&) {
    return false;
  }
  return true;
}

bool init_vectorization(SearchState& st, Rng& rng) {
  try {
    std::vector<std::vector<int64_t>> ext = inferred_leaf_extents(st);
    for (int id = 0; id < st.num_stages(); ++id) {
      const Stage& s = st.stage(id);
      if (skipped(s)) continue;
      const int n = st.num_iters(id);
      const bool tiled = is_tiled(s);
      int64_t lanes = 1;
      int num_fusible = 0;
      while (num_fusible < n) {
        int iter_id = n - 1 - num_fusible;
        if (!attached_stages(st, id, iter_id).empty()) break;
        if (is_reduce_iter(*s.leaf_iters[iter_id]) || is_annotated(s, iter_id)) break;
        // A tiled stage's two innermost loops are not both contiguous.
        if (tiled && num_fusible != 0) break;
        lanes *= ext[id][iter_id];
        if (lanes > kMaxVectorizeSize) break;
        ++num_fusible;
      }
      if (num_fusible > 1) num_fusible = 1 + static_cast<int>(rand_index(rng, num_fusible - 1));
      if (num_fusible == 1) {
        st.annotate(id, n - 1, IterAnnotation::Vectorize);
      } else if (num_fusible > 1) {
        std::vector<int> ids;
        for (int i = n - num_fusible; i < n; ++i) ids.push_back(i);
        st.fuse(id, ids);
        st.annotate(id, n - num_fusible, IterAnnotation::Vectorize);
      }
    }
  } catch (const UserError&) {
    return false;
  }
  return true;
}

bool apply_init_rules(SearchState& st, Rng& rng, SplitFactorization& memo, int num_cores) {
  return init_fill_tile_size(st, rng, memo) && init_change_compute_location(st, rng) &&
         init_parallel(st, num_cores) && init_unroll(st, rng) && init_vectorization(st, rng);
}

}  // namespace mrd::tune

#include "client/tune/state_queries.h"

#include <algorithm>
#include <unordered_map>

#include "common/lower/infer_bound.h"
#include "common/lower/inline_stages.h"
#include "common/lower/lower_context.h"

namespace mrd::tune {

using namespace schedule;

std::vector<int64_t> static_leaf_extents(const Stage& s) {
  std::unordered_map<const IterVarNode*, int64_t> ext;
  for (const IterVarRef& r : s.root_iters) ext[r.get()] = r->dom_extent;
  for (const Relation& rel : s.relations) {
    if (auto* sp = std::get_if<SplitRelation>(&rel)) {
      int64_t p = ext.at(sp->parent.get());
      if (sp->factor > 0) {
        ext[sp->inner.get()] = std::min(sp->factor, p);
        ext[sp->outer.get()] = (p + sp->factor - 1) / sp->factor;
      } else {
        int64_t inner = (p + sp->nparts - 1) / sp->nparts;
        ext[sp->outer.get()] = sp->nparts;
        ext[sp->inner.get()] = inner;
      }
    } else {
      const auto& f = std::get<FuseRelation>(rel);
      ext[f.fused.get()] = ext.at(f.outer.get()) * ext.at(f.inner.get());
    }
  }
  std::vector<int64_t> out;
  for (const IterVarRef& l : s.leaf_iters) out.push_back(ext.at(l.get()));
  return out;
}

std::vector<std::vector<int64_t>> inferred_leaf_extents(const SearchState& st) {
  lower::LowerContext ctx;
  ctx.dag = &st.dag();
  ctx.sch = st.schedule();
  lower::inline_stages(ctx);
  lower::infer_bound(ctx);
  std::vector<std::vector<int64_t>> out;
  for (const StageRef& s : ctx.sch.stages) {
    if (!lower::is_computed(*s)) {
      out.push_back(static_leaf_extents(*s));
      continue;
    }
    std::vector<int64_t> e;
    for (const IterVarRef& l : s->leaf_iters) e.push_back(ctx.ranges.at(l.get()).extent);
    out.push_back(std::move(e));
  }
  return out;
}

bool is_reduce_iter(const IterVarNode& iv) {
  return iv.kind == ir::IterKind::Reduce;
}

bool has_reduce_iter(const Stage& s) {
  for (const IterVarRef& l : s.leaf_iters) {
    if (is_reduce_iter(*l)) return true;
  }
  return false;
}

bool is_tiled(const Stage& s) {
  return s.leaf_iters.size() != s.root_iters.size();
}

std::vector<int> attached_stages(const SearchState& st, int stage_id, int iter_id) {
  const Stage& target = st.stage(stage_id);
  const IterVarNode* iv = target.leaf_iters.at(iter_id).get();
  std::vector<int> out;
  for (int i = 0; i < st.num_stages(); ++i) {
    const Stage& s = st.stage(i);
    if (s.attach == AttachKind::At && s.attach_stage == &target && s.attach_iter.get() == iv) {
      out.push_back(i);
    }
  }
  return out;
}

std::pair<int, int> attach_point(const SearchState& st, int stage_id) {
  const Stage& s = st.stage(stage_id);
  if (s.attach != AttachKind::At) return {-1, -1};
  int target = st.schedule().stage_index(s.attach_stage);
  return {target, s.attach_stage->leaf_index(s.attach_iter.get())};
}

bool has_cache_write_stage(const std::vector<Step>& steps, int stage_id) {
  for (size_t i = steps.size(); i-- > 0;) {
    const Step& s = steps[i];
    if (auto* cw = std::get_if<CacheWriteStep>(&s)) {
      if (cw->stage_id == stage_id) return true;
    }
    if (std::holds_alternative<CacheWriteStep>(s) || std::holds_alternative<CacheReadStep>(s) ||
        std::holds_alternative<RfactorStep>(s)) {
      if (stage_id > step_stage_id(s)) --stage_id;
    }
  }
  return false;
}

}  // namespace mrd::tune

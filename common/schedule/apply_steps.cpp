#include "common/schedule/apply_steps.h"

#include <cstdlib>

#include "common/util/error.h"

namespace mrd::schedule {

namespace {

class Applier {
 public:
  Applier(Schedule& sch, const std::vector<Step>& steps) : sch_(sch), steps_(steps) {}

  Stage& stage(int id) {
    MRD_USER_CHECK(id >= 0 && static_cast<size_t>(id) < sch_.stages.size(), "stage id ", id,
                   " out of range: the schedule has ", sch_.stages.size(), " stages");
    return *sch_.stages[id];
  }

  void operator()(const AnnotationStep& s) {
    Stage& st = stage(s.stage_id);
    MRD_USER_CHECK(!st.is_placeholder(), "cannot annotate placeholder ", st.op->name);
    MRD_USER_CHECK(s.iter_id >= 0 && static_cast<size_t>(s.iter_id) < st.leaf_iters.size(),
                   "iterator id ", s.iter_id, " out of range: stage ", st.op->name, " has ",
                   st.leaf_iters.size(), " iterators");
    MRD_USER_CHECK(s.annotation >= 0 && s.annotation <= 3, "annotation ", s.annotation,
                   " (GPU thread binding, vthread or tensorize) is not supported on CPU");
    st.annotations[st.leaf_iters[s.iter_id].get()] = static_cast<IterAnnotation>(s.annotation);
  }
  void operator()(const FuseStep& s) { fuse(sch_, stage(s.stage_id), s.fused_ids); }
  void operator()(const PragmaStep& s) {
    Stage& st = stage(s.stage_id);
    MRD_USER_CHECK(!st.is_placeholder(), "cannot annotate placeholder ", st.op->name);
    MRD_USER_CHECK(s.iter_id >= 0 && static_cast<size_t>(s.iter_id) < st.leaf_iters.size(),
                   "iterator id ", s.iter_id, " out of range: stage ", st.op->name, " has ",
                   st.leaf_iters.size(), " iterators");
    const std::string prefix = "auto_unroll_max_step$";
    MRD_USER_CHECK(s.pragma_type.rfind(prefix, 0) == 0, "unsupported pragma \"", s.pragma_type,
                   "\" (only auto_unroll_max_step$N)");
    std::string num = s.pragma_type.substr(prefix.size());
    MRD_USER_CHECK(
        !num.empty() && num.size() <= 9 && num.find_first_not_of("0123456789") == std::string::npos,
        "bad auto_unroll_max_step value \"", num, "\"");
    st.auto_unroll_max_step[st.leaf_iters[s.iter_id].get()] = std::stoll(num);
  }
  void operator()(const ReorderStep& s) { reorder(stage(s.stage_id), s.after_ids); }
  void operator()(const SplitStep& s) {
    Stage& st = stage(s.stage_id);
    split(sch_, st, s.iter_id, s.lengths, s.inner_to_outer);
  }
  void operator()(const FollowSplitStep& s) {
    MRD_USER_CHECK(s.src_step_id < index_, "FSP refers to step ", s.src_step_id,
                   ", which does not come before it");
    std::vector<int64_t> lengths = follow_split_lengths(s, steps_);
    split(sch_, stage(s.stage_id), s.iter_id, lengths, true);
  }
  void operator()(const FollowFusedSplitStep& s) {
    for (int src : s.src_step_ids) {
      MRD_USER_CHECK(src < index_, "FFSP refers to step ", src, ", which does not come before it");
    }
    int64_t len = follow_fused_split_length(s, steps_);
    split(sch_, stage(s.stage_id), s.iter_id, {len}, s.factor_or_nparts);
  }
  void operator()(const StorageAlignStep& s) { stage(s.stage_id); }
  void operator()(const ComputeAtStep& s) {
    Stage& st = stage(s.stage_id);
    Stage& target = stage(s.target_stage_id);
    MRD_USER_CHECK(s.target_stage_id > s.stage_id, "stage ", st.op->name,
                   " cannot be computed at stage ", target.op->name,
                   ", which comes before it (consumers come after their producers)");
    compute_at(st, target, s.target_iter_id);
    st.attach_step = index_;
  }
  void operator()(const ComputeInlineStep& s) {
    compute_inline(sch_, stage(s.stage_id));
    stage(s.stage_id).attach_step = index_;
  }
  void operator()(const ComputeRootStep& s) {
    compute_root(stage(s.stage_id));
    stage(s.stage_id).attach_step = index_;
  }
  void operator()(const CacheReadStep&) { throw UserError("cache_read is not supported on CPU"); }
  void operator()(const CacheWriteStep& s) {
    stage(s.stage_id);
    cache_write(sch_, s.stage_id, s.scope_name);
  }
  void operator()(const RfactorStep& s) {
    stage(s.stage_id);
    rfactor(sch_, s.stage_id, s.iter_id, s.factor_iter_id);
  }

  void apply(size_t index) {
    index_ = static_cast<int>(index);
    std::visit(*this, steps_[index]);
  }

 private:
  Schedule& sch_;
  const std::vector<Step>& steps_;
  int index_ = -1;
};

}  // namespace

Schedule apply_steps(const dag::ComputeDAG& dag, const std::vector<Step>& steps) {
  Schedule sch = Schedule::create(dag);
  Applier applier(sch, steps);
  for (size_t i = 0; i < steps.size(); ++i) {
    try {
      applier.apply(i);
    } catch (const UserError& e) {
      throw UserError(str_cat("step ", i, " (", step_name(steps[i]), "): ", e.what()));
    }
  }
  return sch;
}

}  // namespace mrd::schedule

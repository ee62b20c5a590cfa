#include "client/tune/access_analysis.h"

#include <functional>

#include "common/ir/expr_functor.h"
#include "common/ir/operation.h"

namespace mrd::tune {

using namespace schedule;

namespace {

/// TVM's IsInjective: every index is a constant or one of the op's axis variables.
bool is_injective(const ir::OperationNode& op, const std::vector<ir::Expr>& index,
                  bool* axis_missing, bool* axis_duplicated, bool* same_order) {
  if (op.is_placeholder()) return false;
  std::vector<int> index_to_var;
  std::vector<int> var_count(op.axis.size(), 0);
  for (const ir::Expr& e : index) {
    if (e.as<ir::IntImmNode>()) continue;
    bool found = false;
    for (size_t i = 0; i < op.axis.size(); ++i) {
      if (e.same_as(op.axis[i].var)) {
        index_to_var.push_back(static_cast<int>(i));
        ++var_count[i];
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  *axis_missing = false;
  *axis_duplicated = false;
  for (int c : var_count) {
    if (c == 0) *axis_missing = true;
    if (c > 1) *axis_duplicated = true;
  }
  *same_order = true;
  for (size_t i = 1; i < index_to_var.size(); ++i) {
    if (index_to_var[i] < index_to_var[i - 1]) *same_order = false;
  }
  return true;
}

}  // namespace

AccessAnalysis::AccessAnalysis(const SearchState& st) : st_(&st) {
  int n = st.num_stages();
  read_from_.resize(n);
  read_by_.resize(n);
  has_branch_.assign(n, false);
  has_expensive_.assign(n, false);
  for (int c = 0; c < n; ++c) {
    const Stage& s = st.stage(c);
    if (s.is_placeholder()) continue;
    ir::post_order_visit(s.op->body, [&](const ir::Expr& e) {
      if (auto* r = e.as<ir::TensorReadNode>()) {
        Stage* p = st.schedule().producer_of(r->op.get());
        if (p == nullptr) return;
        int pid = st.schedule().stage_index(p);
        read_from_[c][pid].push_back(r->indices);
        read_by_[pid][c].push_back(r->indices);
      } else if (auto* call = e.as<ir::CallNode>()) {
        if (call->op == ir::CallOp::IfThenElse) has_branch_[c] = true;
        if (call->op == ir::CallOp::Exp) has_expensive_[c] = true;
      } else if (e.as<ir::SelectNode>()) {
        has_branch_[c] = true;
      }
    });
  }
}

bool AccessAnalysis::needs_multi_level_tiling(int stage_id) const {
  const Stage& s = st_->stage(stage_id);
  if (s.is_placeholder()) return false;
  const ir::OperationNode& op = *s.op;
  int n_missing = 0;
  for (const auto& [producer, accesses] : read_from_[stage_id]) {
    std::set<const ir::ExprNode*> vars;
    for (const auto& access : accesses) {
      for (const ir::Expr& e : access) {
        ir::post_order_visit(e, [&](const ir::Expr& x) {
          if (x.as<ir::VarNode>()) vars.insert(x.get());
        });
      }
    }
    for (const ir::IterVar& ax : op.axis) {
      if (ax.extent > 1 && vars.count(ax.var.get()) == 0) {
        ++n_missing;
        break;
      }
    }
    if (n_missing >= 2 || (n_missing >= 1 && !op.reduce_axis.empty())) return true;
  }
  return false;
}

bool AccessAnalysis::is_strictly_inlineable(int stage_id) const {
  const Stage& s = st_->stage(stage_id);
  if (s.is_placeholder()) return false;
  if (read_from_[stage_id].empty()) return true;  // a constant tensor
  for (const auto& [producer, accesses] : read_from_[stage_id]) {
    for (const auto& access : accesses) {
      bool missing, duplicated, same_order;
      if (!is_injective(*s.op, access, &missing, &duplicated, &same_order)) return false;
      if (!same_order || duplicated) return false;
    }
  }
  return !has_expensive_[stage_id] && !has_branch_[stage_id];
}

bool AccessAnalysis::is_output(int stage_id) const {
  return !st_->stage(stage_id).is_placeholder() && read_by_[stage_id].empty();
}

bool AccessAnalysis::elementwise_match(int stage_id, int target_stage_id) const {
  int cur = stage_id;
  while (cur != target_stage_id) {
    if (read_by_[cur].size() != 1) return false;
    int next = read_by_[cur].begin()->first;
    const Stage& a = st_->stage(cur);
    const Stage& b = st_->stage(next);
    if (a.is_placeholder() || b.is_placeholder()) return false;
    if (a.op->shape != b.op->shape) return false;
    for (const auto& read : read_by_[cur].begin()->second) {
      bool missing, duplicated, same_order;
      if (!is_injective(*b.op, read, &missing, &duplicated, &same_order) || missing || duplicated ||
          !same_order) {
        return false;
      }
    }
    cur = next;
  }
  return true;
}

std::set<int> AccessAnalysis::consumers(int stage_id) const {
  std::set<int> out;
  std::function<void(int)> collect = [&](int p) {
    for (const auto& [c, accesses] : read_by_[p]) {
      if (st_->stage(c).attach == AttachKind::Inline) {
        collect(c);
      } else {
        out.insert(c);
      }
    }
  };
  collect(stage_id);
  return out;
}

}  // namespace mrd::tune

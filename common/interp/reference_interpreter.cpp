#include "common/interp/reference_interpreter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <unordered_map>

#include "common/interp/resolved_expr.h"
#include "common/interp/scalar_ops.h"
#include "common/ir/expr.h"
#include "common/util/error.h"

namespace mrd::interp {

namespace {

using namespace ir;

int64_t checked_elements(const OperationNode& op) {
  int64_t n = 1;
  for (int64_t d : op.shape) {
    MRD_USER_CHECK(d > 0 && n <= kMaxInterpElements / d, "tensor ", op.name,
                   " is too large for the reference interpreter (limit ", kMaxInterpElements,
                   " elements)");
    n *= d;
  }
  return n;
}

using LaneBox = ResolvedExpr::LaneBox;
using Clock = std::chrono::steady_clock;

// The end of an evaluation's budget, looked at every so many boxes of an op's elements.
class Budget {
 public:
  explicit Budget(double seconds) : seconds_(seconds) {
    if (seconds > 0)
      end_ = Clock::now() +
             std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  }
  /// Throws UserError when the budget has passed, naming where the evaluation was.
  void check(const OperationNode& op, int64_t done, int64_t elements) {
    if (!end_ || (boxes_++ & 63) != 0 || Clock::now() < *end_) return;
    throw UserError(str_cat("the reference interpreter passed its budget of ", seconds_,
                            " s at element ", done, " of ", elements, " of ", op.name,
                            ": the workload is too large to check (turn off check_correctness)"));
  }

 private:
  double seconds_;
  std::optional<Clock::time_point> end_;
  uint64_t boxes_ = 0;
};

// Visits the points of slots [base, base + extents.size()) of env, from mins, in row-major
// order (the last axis fastest) as consecutive boxes of at most kMaxLanes points: the trailing
// axes that fit whole, and a run along the axis before them. visit(box) sees env at the box's
// first point and leaves it there.
template <class Visit>
void walk_boxes(int64_t* env, size_t base, const std::vector<int64_t>& mins,
                const std::vector<int64_t>& extents, Visit visit) {
  const size_t rank = extents.size();
  for (size_t d = 0; d < rank; ++d) {
    if (extents[d] <= 0) return;
    env[base + d] = mins[d];
  }
  size_t whole = rank;  // axes [whole, rank) fit whole
  int64_t points = 1;
  while (whole > 0 && extents[whole - 1] <= ResolvedExpr::kMaxLanes / points)
    points *= extents[--whole];
  auto box_from = [&](int64_t run_length) {
    LaneBox box;
    auto add = [&](size_t d, int64_t length) {
      if (length <= 1) return;
      box.axes[box.rank++] = {static_cast<int64_t>(base + d), static_cast<int32_t>(length)};
      box.count *= static_cast<int32_t>(length);
    };
    if (whole > 0) add(whole - 1, run_length);
    for (size_t d = whole; d < rank; ++d) add(d, extents[d]);
    return box;
  };
  if (whole == 0) {
    visit(box_from(1));
    return;
  }
  const size_t run = whole - 1;
  const int64_t per_run = ResolvedExpr::kMaxLanes / points;
  while (true) {
    for (int64_t j = 0; j < extents[run]; j += per_run) {
      env[base + run] = mins[run] + j;
      visit(box_from(std::min(per_run, extents[run] - j)));
    }
    env[base + run] = mins[run];
    size_t d = run;  // the next point of the axes before the run
    while (true) {
      if (d == 0) return;
      --d;
      if (++env[base + d] < mins[d] + extents[d]) break;
      env[base + d] = mins[d];
    }
  }
}

// Calls f(k) at each point k of the box in order, env at that point; env ends where it began.
template <class F>
void each_point(int64_t* env, const LaneBox& box, F f) {
  int64_t start[ResolvedExpr::kMaxLaneAxes];
  for (int32_t j = 0; j < box.rank; ++j) start[j] = env[box.axes[j].slot];
  for (int32_t k = 0; k < box.count; ++k) {
    f(k);
    for (int32_t j = box.rank; j-- > 0;) {
      int64_t& v = env[box.axes[j].slot];
      if (++v < start[j] + box.axes[j].length) break;
      v = start[j];
    }
  }
}

// Evaluates one compute op over its whole domain: its axes fill slots 0..n-1 of the
// environment, row-major (last axis fastest), and a reduction's axes the slots after them.
// Points go in boxes to ResolvedExpr's eval_f_lanes or eval_i_lanes where they cover the
// expression, one at a time otherwise, in the same order either way.
class OpEvaluator {
 public:
  OpEvaluator(const OperationNode& op, const TensorValues& tensors, Budget& budget)
      : op_(op), budget_(budget) {
    std::vector<const VarNode*> slots;
    for (size_t d = 0; d < op.axis.size(); ++d) {
      slots.push_back(op.axis[d].var.as<VarNode>());
      mins_.push_back(op.axis[d].min);
      extents_.push_back(op.shape[d]);
    }
    reduce_ = op.body.as<ReduceNode>();
    if (reduce_) {
      for (const IterVar& iv : reduce_->axis) {
        slots.push_back(iv.var.as<VarNode>());
        reduce_mins_.push_back(iv.min);
        reduce_extents_.push_back(iv.extent);
      }
      Expr identity = reduce_identity(reduce_->op, op.dtype);
      identity_ = is_float(op.dtype) ? identity.as<FloatImmNode>()->value
                                     : static_cast<double>(*as_const_int(identity));
      value_.emplace(reduce_->source, slots, tensors);
      if (reduce_->condition.defined()) condition_.emplace(reduce_->condition, slots, tensors);
    } else {
      value_.emplace(op.body, slots, tensors);
    }
    env_.resize(slots.size());
  }

  HostTensor compute() {
    HostTensor out;
    out.dtype = op_.dtype;
    out.shape = op_.shape;
    out.data.resize(static_cast<size_t>(checked_elements(op_)));
    double* dst = out.data.data();
    elements_ = static_cast<int64_t>(out.data.size());
    walk_boxes(env_.data(), 0, mins_, extents_, [&](const LaneBox& box) {
      at_ = dst - out.data.data();
      budget_.check(op_, at_, elements_);
      if (!stored_lanes(box, dst))
        each_point(env_.data(), box, [&](int32_t k) { dst[k] = element(); });
      dst += box.count;
    });
    return out;
  }

 private:
  double element() { return reduce_ ? reduce(op_.dtype) : stored(op_.dtype); }

  double stored(DType t) {
    if (is_float(t)) return store_value(t, value_->eval_f(env_.data()));
    return static_cast<double>(wrap_int(t, value_->eval_i(env_.data())));
  }

  // The elements of an op without reduction at the points of `box`, if lanes cover its body.
  bool stored_lanes(const LaneBox& box, double* dst) {
    DType t = op_.dtype;
    if (reduce_) return false;
    if (is_float(t)) {
      if (!value_->eval_f_lanes(env_.data(), box, dst)) return false;
      for (int32_t k = 0; k < box.count; ++k) dst[k] = store_value(t, dst[k]);
      return true;
    }
    int64_t values[ResolvedExpr::kMaxLanes];
    if (!value_->eval_i_lanes(env_.data(), box, values)) return false;
    for (int32_t k = 0; k < box.count; ++k) dst[k] = static_cast<double>(wrap_int(t, values[k]));
    return true;
  }

  // The reduction at the current element, over its domain in order (last axis fastest).
  double reduce(DType t) {
    double acc = identity_;
    walk_boxes(env_.data(), op_.axis.size(), reduce_mins_, reduce_extents_,
               [&](const LaneBox& box) {
                 budget_.check(op_, at_, elements_);
                 acc = reduce_box(t, acc, box);
               });
    return acc;
  }

  // acc combined with the source at each point of `box` in turn.
  double reduce_box(DType t, double acc, const LaneBox& box) {
    const BinaryOp combine = combine_op(reduce_->op);
    double values[ResolvedExpr::kMaxLanes];
    int64_t ints[ResolvedExpr::kMaxLanes];
    // A condition guards the source: its points go one at a time.
    if (!condition_ && is_float(t) && value_->eval_f_lanes(env_.data(), box, values)) {
      for (int32_t k = 0; k < box.count; ++k) {
        double v = values[k];
        acc = store_value(t, combine == BinaryOp::Add ? acc + v : float_binary(combine, acc, v));
      }
      return acc;
    }
    if (!condition_ && !is_float(t) && value_->eval_i_lanes(env_.data(), box, ints)) {
      for (int32_t k = 0; k < box.count; ++k) {
        acc = static_cast<double>(
            wrap_int(t, int_binary(combine, float_to_int(DType::Int64, acc), ints[k])));
      }
      return acc;
    }
    each_point(env_.data(), box, [&](int32_t) { acc = accumulate(t, acc); });
    return acc;
  }

  // acc combined with the source at the current point of the reduction domain.
  double accumulate(DType t, double acc) {
    const ReduceNode& r = *reduce_;
    const int64_t* env = env_.data();
    if (condition_ && !condition_->eval_i(env)) return acc;
    if (is_float(t))
      return store_value(t, float_binary(combine_op(r.op), acc, value_->eval_f(env)));
    int64_t v = value_->eval_i(env);
    return static_cast<double>(
        wrap_int(t, int_binary(combine_op(r.op), float_to_int(DType::Int64, acc), v)));
  }

  const OperationNode& op_;
  Budget& budget_;
  int64_t at_ = 0, elements_ = 0;  ///< the first element of the box being computed, of all
  const ReduceNode* reduce_ = nullptr;
  double identity_ = 0;  ///< the reduction's identity, as a value of the op's type
  std::optional<ResolvedExpr> value_, condition_;
  std::vector<int64_t> mins_, extents_, reduce_mins_, reduce_extents_;
  std::vector<int64_t> env_;
};

HostTensor empty_like(const OperationNode& op) {
  HostTensor t;
  t.dtype = op.dtype;
  t.shape = op.shape;
  t.data.resize(static_cast<size_t>(checked_elements(op)));
  return t;
}

}  // namespace

std::vector<HostTensor> evaluate(const dag::ComputeDAG& dag, const std::vector<HostTensor>& inputs,
                                 double budget_seconds) {
  Budget budget(budget_seconds);
  TensorValues values;
  size_t next_input = 0;
  for (const Tensor& t : dag.tensors()) {
    if (!t->is_placeholder()) continue;
    MRD_USER_CHECK(next_input < inputs.size(),
                   "the reference interpreter needs an input for "
                   "placeholder ",
                   t->name, "; got only ", inputs.size(), " inputs");
    const HostTensor& in = inputs[next_input++];
    MRD_USER_CHECK(in.shape == t->shape, "input for placeholder ", t->name, " has the wrong shape");
    MRD_USER_CHECK(static_cast<int64_t>(in.data.size()) == checked_elements(*t.op()),
                   "input for placeholder ", t->name, " has ", in.data.size(), " values");
    values[t.op().get()] = &in;
  }
  MRD_USER_CHECK(next_input == inputs.size(), "the reference interpreter got ", inputs.size(),
                 " inputs for ", next_input, " placeholders");

  std::unordered_map<const OperationNode*, HostTensor> computed;
  for (const Operation& op : dag.ops()) {
    if (op->is_placeholder()) {
      MRD_USER_CHECK(values.count(op.get()), "placeholder ", op->name,
                     " is read but is not one of the workload's tensors");
      continue;
    }
    HostTensor result = OpEvaluator(*op, values, budget).compute();
    auto [it, inserted] = computed.emplace(op.get(), std::move(result));
    values[op.get()] = &it->second;
  }

  std::vector<HostTensor> outputs;
  for (const Tensor& t : dag.tensors()) {
    if (!t->is_placeholder()) outputs.push_back(computed.at(t.op().get()));
  }
  return outputs;
}

double InputValues::next() {
  uint64_t r = gen_();
  if (!is_float(dtype_)) return static_cast<double>(1 + r % 9);
  double u = static_cast<double>(r >> 11) * 0x1.0p-53;
  double v = store_value(dtype_, 1.0 + 9.0 * u);
  if (v >= 10.0) v = std::nextafter(10.0f, 0.0f);  // float32 rounding may reach 10
  return v;
}

HostTensor make_input(const OperationNode& placeholder, uint64_t seed) {
  HostTensor t = empty_like(placeholder);
  InputValues values(t.dtype, seed);
  for (double& v : t.data) v = values.next();
  return t;
}

HostTensor make_reference_input(const OperationNode& placeholder) {
  HostTensor t = empty_like(placeholder);
  for (size_t i = 0; i < t.data.size(); ++i) {
    int64_t m = static_cast<int64_t>((static_cast<uint64_t>(i) * 7919) % 1000);
    t.data[i] =
        store_value(t.dtype, is_float(t.dtype) ? m / 1000.0 - 0.5 : static_cast<double>(m - 500));
  }
  return t;
}

}  // namespace mrd::interp

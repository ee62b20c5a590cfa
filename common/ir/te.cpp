#include "common/ir/te.h"

#include "common/util/error.h"

namespace mrd::ir {

Tensor placeholder(std::vector<int64_t> shape, std::string name, DType dtype) {
  return Tensor(OperationNode::make_placeholder(std::move(name), std::move(shape), dtype));
}

IterVar reduce_axis(int64_t begin, int64_t end, std::string name) {
  MRD_USER_CHECK(end > begin, "reduce_axis ", name, " has an empty range [", begin, ", ", end,
                 ")");
  return IterVar{Var(std::move(name)), begin, end - begin, IterKind::Reduce};
}

Tensor compute(std::vector<int64_t> shape, const ComputeFn& fn, std::string name,
               std::vector<std::string> axis_names, std::string tag) {
  std::vector<IterVar> axis;
  std::vector<Var> vars;
  for (size_t d = 0; d < shape.size(); ++d) {
    std::string n = d < axis_names.size() ? axis_names[d] : str_cat("i", d);
    Var v(std::move(n));
    vars.push_back(v);
    axis.push_back(IterVar{v, 0, shape[d], IterKind::DataPar});
  }
  Expr body = fn(vars);
  return Tensor(OperationNode::make_compute(std::move(name), std::move(tag), std::move(axis),
                                            std::move(body)));
}

namespace detail {
void throw_arity_mismatch(size_t ndim) {
  throw UserError(str_cat("compute: the function's parameter count does not match the ", ndim,
                          "-dimensional shape"));
}
}  // namespace detail

}  // namespace mrd::ir

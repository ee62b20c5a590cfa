// The arguments kept between the candidates of a task: inputs filled once and shared, outputs
// reset for each candidate, arguments a kernel changed the inputs of filled again, another
// task's made fresh.
#include "common/measure/argument_cache.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "common/ir/te.h"

using namespace mrd;
using namespace mrd::ir;
using measure::ArgumentCache;
using measure::HostArgs;

namespace {

dag::ComputeDAG scale_dag(int64_t n) {
  Tensor a = placeholder({n}, "A");
  Tensor b = placeholder({n}, "B", DType::Int32);
  Tensor c = compute({n}, [&](Var i) { return a(i) * 2.0f; }, "C", {"i"});
  return dag::ComputeDAG({a, b, c});
}

// Every input element of `args` equals that of freshly made arguments for the same DAG.
bool inputs_as_fresh(const HostArgs& args, const dag::ComputeDAG& dag) {
  HostArgs fresh(dag);
  for (size_t pos : fresh.input_positions())
    for (int64_t i = 0; i < fresh.elements(pos); ++i)
      if (args.value(pos, i) != fresh.value(pos, i)) return false;
  return true;
}

bool outputs_are_sentinel(const HostArgs& args) {
  for (size_t pos : args.output_positions())
    for (int64_t i = 0; i < args.elements(pos); ++i)
      if (!std::isnan(args.value(pos, i))) return false;
  return true;
}

}  // namespace

TEST_CASE("argument cache: the candidates of a task share its inputs, filled once") {
  ArgumentCache cache;
  dag::ComputeDAG dag = scale_dag(64);
  auto first = cache.take("task-a", dag);
  const HostArgs* filled = first.get();
  CHECK(inputs_as_fresh(*first, dag));
  cache.put_back("task-a", std::move(first));
  auto second = cache.take("task-a", dag);
  CHECK(second.get() == filled);  // the same buffers, not filled again
  CHECK(inputs_as_fresh(*second, dag));
  // Taken and not yet put back: a concurrent candidate gets arguments of its own.
  auto other = cache.take("task-a", dag);
  CHECK(other.get() != second.get());
  CHECK(inputs_as_fresh(*other, dag));
}

TEST_CASE("argument cache: another task's arguments are made for its own tensors") {
  ArgumentCache cache;
  dag::ComputeDAG small = scale_dag(16), large = scale_dag(48);
  cache.put_back("small", cache.take("small", small));
  auto args = cache.take("large", large);
  CHECK(args->elements(0) == 48);
  CHECK(inputs_as_fresh(*args, large));
  cache.put_back("large", std::move(args));
  // Back to the first task: its arguments were let go for the second's, made again.
  auto again = cache.take("small", small);
  CHECK(again->elements(0) == 16);
  CHECK(inputs_as_fresh(*again, small));
}

TEST_CASE("argument cache: no output of a candidate survives into the next") {
  ArgumentCache cache;
  dag::ComputeDAG dag = scale_dag(32);
  auto args = cache.take("t", dag);
  CHECK(outputs_are_sentinel(*args));
  size_t out = args->output_positions().at(0);
  for (int64_t i = 0; i < args->elements(out); ++i) args->perturb(out, i, 0.0);  // NaN stays NaN
  static_cast<float*>(args->pointers()[out])[5] = 42.0f;  // a value a kernel wrote
  cache.put_back("t", std::move(args));
  auto next = cache.take("t", dag);
  CHECK(outputs_are_sentinel(*next));
}

TEST_CASE("argument cache: arguments whose inputs a kernel changed are filled again") {
  ArgumentCache cache;
  dag::ComputeDAG dag = scale_dag(32);
  auto args = cache.take("t", dag);
  CHECK(args->inputs_unchanged());
  size_t in = args->input_positions().at(1);
  args->perturb(in, 31, 1.0);  // the last element of the int32 input
  CHECK_FALSE(args->inputs_unchanged());
  cache.put_back("t", std::move(args));
  auto next = cache.take("t", dag);
  CHECK(inputs_as_fresh(*next, dag));
  CHECK(next->inputs_unchanged());
}

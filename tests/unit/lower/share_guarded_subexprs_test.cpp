// Sharing the computations under a branch (TVM's CommonSubexprElimTIR where the LLVM
// backend's own sharing cannot reach), on hand-built IR compared as printed IR, and on a
// padded pooling window lowered and run against the reference interpreter.
#include "common/lower/share_guarded_subexprs.h"

#include <catch2/catch.hpp>

#include "common/ir/printer.h"
#include "common/schedule/transform_steps.h"
#include "tests/unit/lower/lower_test_util.h"

using namespace mrd;
using namespace mrd::ir;

namespace {

Expr guarded_read(const Buffer& in, const Expr& cond, const Expr& index) {
  return CallNode::make(CallOp::IfThenElse, {cond, BufferLoadNode::make(in, {index}), Expr(0.0f)});
}

}  // namespace

TEST_CASE("share_guarded_subexprs binds a computation read under branches once per loop body",
          "[lower][share_guarded_subexprs]") {
  Buffer in = BufferNode::make("in", DType::Float32, {64});
  Buffer out = BufferNode::make("out", DType::Float32, {16});
  Var i("i"), j("j");
  Expr base = i * 8 + j * 2;
  Stmt body = SeqNode::make({StoreNode::make(out, {i * 4 + j}, guarded_read(in, j >= 1, base - 1)),
                             StoreNode::make(out, {i * 4 + j + 1}, guarded_read(in, i >= 1, base + 1))});
  auto nest = [&](Stmt s) {
    return ForNode::make(i, Expr(0), Expr(4), ForKind::Serial,
                         ForNode::make(j, Expr(0), Expr(4), ForKind::Serial, std::move(s)));
  };
  Stmt shared = lower::share_guarded_subexprs(nest(body));
  std::string text = to_string(shared);
  INFO(text);
  // One let, at the top of the innermost body (it needs j), holding the largest shared part.
  CHECK(text.find("cse_var_1 = ((i*8) + (j*2))") != std::string::npos);
  CHECK(text.find("in[(cse_var_1 - 1)]") != std::string::npos);
  CHECK(text.find("in[(cse_var_1 + 1)]") != std::string::npos);
  CHECK(text.find("cse_var_2") == std::string::npos);
}

TEST_CASE("share_guarded_subexprs leaves what occurs once, or never under a branch",
          "[lower][share_guarded_subexprs]") {
  Buffer in = BufferNode::make("in", DType::Float32, {64});
  Buffer out = BufferNode::make("out", DType::Float32, {16});
  Var i("i");
  // Under a branch but once.
  Stmt once = ForNode::make(i, Expr(0), Expr(4), ForKind::Serial,
                            StoreNode::make(out, {Expr(i)}, guarded_read(in, i >= 1, i * 8 + 3)));
  CHECK(to_string(lower::share_guarded_subexprs(once)) == to_string(once));
  // Twice, never under a branch: the backend shares it itself.
  Stmt plain = ForNode::make(
      i, Expr(0), Expr(4), ForKind::Serial,
      SeqNode::make({StoreNode::make(out, {Expr(i)}, BufferLoadNode::make(in, {i * 8 + 3})),
                     StoreNode::make(out, {i + 4}, BufferLoadNode::make(in, {i * 8 + 3}))}));
  CHECK(to_string(lower::share_guarded_subexprs(plain)) == to_string(plain));
}

TEST_CASE("a padded 3x3 window read through a cached tile shares its address and stays correct",
          "[lower][share_guarded_subexprs]") {
  // max_pool2d 1x2x8x8, 3x3 window, stride 2, padding 1; pad_temp computed at the pool's
  // innermost spatial loop and unrolled: nine guarded reads of one window.
  auto dag = lower::testing::builtin_dag(
      "max_pool2d", {int64_t(1), int64_t(2), int64_t(8), int64_t(8), int64_t(3), int64_t(2), int64_t(1)});
  auto steps = schedule::steps_from_json(nlohmann::json::parse(
      R"([["CA", 1, 2, 3], ["FU", 2, [0, 1]], ["AN", 2, 0, 3], ["PR", 2, 0, "auto_unroll_max_step$64"],
          ["FU", 1, [2, 3]], ["AN", 1, 2, 2]])"));
  ir::PrimFunc f = lower::testing::check_lowering(dag, steps);
  std::string text = to_string(lower::finish_lowering(f, lower::Backend::LLVM).body);
  INFO(text);
  CHECK(text.find("cse_var_1 = ") != std::string::npos);
}

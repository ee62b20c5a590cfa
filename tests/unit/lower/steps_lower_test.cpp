// Each transform step kind, lowered and run on the primfunc evaluator, against the reference
// interpreter, on small shapes with non-divisible splits.
#include <catch2/catch.hpp>

#include "common/ir/printer.h"
#include "common/ir/stmt_functor.h"
#include "common/ir/te.h"
#include "common/schedule/transform_steps.h"
#include "tests/unit/lower/lower_test_util.h"

using namespace mrd;
using namespace mrd::schedule;
using lower::testing::builtin_dag;
using lower::testing::check_lowering;

namespace {

std::vector<Step> S(const char* json_text) {
  return steps_from_json(nlohmann::json::parse(json_text));
}

/// matmul 10x7x9: stage 2 = C with iterators i (10), j (9), k (7).
dag::ComputeDAG small_matmul() {
  return builtin_dag("matmul", {int64_t(10), int64_t(7), int64_t(9), std::string("float32")});
}

struct ForStats : ir::StmtVisitor {
  int loops = 0, parallel = 0, vectorized = 0, unrolled = 0, ifs = 0, allocs = 0;
  void run(const ir::Stmt& s) { visit(s); }

 protected:
  void visit_(const ir::ForNode* op, const ir::Stmt& self) override {
    ++loops;
    parallel += op->for_kind == ir::ForKind::Parallel;
    vectorized += op->for_kind == ir::ForKind::Vectorized;
    unrolled += op->for_kind == ir::ForKind::Unrolled;
    StmtVisitor::visit_(op, self);
  }
  void visit_(const ir::IfThenElseNode* op, const ir::Stmt& self) override {
    ++ifs;
    StmtVisitor::visit_(op, self);
  }
  void visit_(const ir::AllocateNode* op, const ir::Stmt& self) override {
    ++allocs;
    StmtVisitor::visit_(op, self);
  }
};

ForStats stats(const ir::PrimFunc& f) {
  ForStats s;
  s.run(f.body);
  return s;
}

}  // namespace

TEST_CASE("default schedule lowers each workload correctly", "[lower]") {
  check_lowering(small_matmul(), {});
  check_lowering(
      builtin_dag("matmul_add", {int64_t(6), int64_t(5), int64_t(7), std::string("float32")}), {});
  check_lowering(builtin_dag("softmax", {int64_t(3), int64_t(11)}), {});
  check_lowering(
      builtin_dag("conv2d_nchw", {int64_t(1), int64_t(2), int64_t(5), int64_t(5), int64_t(3),
                                  int64_t(3), int64_t(3), int64_t(1), int64_t(1)}),
      {});
  ir::PrimFunc f = check_lowering(small_matmul(), {});
  CHECK(stats(f).loops == 3);  // i, j, k; the init sits inside j
  CHECK(stats(f).ifs == 0);
}

TEST_CASE("SP: divisible and non-divisible splits, both directions", "[lower][SP]") {
  auto dag = small_matmul();
  SECTION("10 split by 3 gets a guard") {
    ir::PrimFunc f = check_lowering(dag, S(R"([["SP", 2, 0, 10, [3], 1]])"));
    CHECK(stats(f).ifs >= 1);
  }
  SECTION("divisible split needs no guard") {
    ir::PrimFunc f = check_lowering(dag, S(R"([["SP", 2, 0, 10, [5], 1]])"));
    CHECK(stats(f).ifs == 0);
  }
  SECTION("multi-level split of a spatial and a reduction axis") {
    check_lowering(
        dag,
        S(R"([["SP", 2, 0, 10, [2, 3], 1], ["SP", 2, 3, 9, [2, 2], 1], ["SP", 2, 6, 7, [3], 1]])"));
  }
  SECTION("split by nparts") {
    check_lowering(dag, S(R"([["SP", 2, 1, 9, [4, 2], 0], ["SP", 2, 4, 7, [2], 0]])"));
  }
  SECTION("factor larger than the extent") {
    check_lowering(dag, S(R"([["SP", 2, 2, 7, [16], 1]])"));
  }
}

TEST_CASE("RE: the multi-level tiling order", "[lower][RE]") {
  auto dag = small_matmul();
  check_lowering(
      dag, S(R"([["SP", 2, 0, 10, [2, 3], 1], ["SP", 2, 3, 9, [2, 2], 1], ["SP", 2, 6, 7, [3], 1],
                            ["RE", 2, [0, 3, 1, 4, 6, 2, 5, 7]]])"));
  check_lowering(dag, S(R"([["RE", 2, [2, 1, 0]]])"));
}

TEST_CASE("FU: fused loops, a fused parallel outer loop", "[lower][FU][AN]") {
  auto dag = small_matmul();
  ir::PrimFunc f = check_lowering(
      dag, S(R"([["SP", 2, 0, 10, [3], 1], ["SP", 2, 2, 9, [4], 1], ["RE", 2, [0, 2, 1, 3, 4]],
                 ["FU", 2, [0, 1]], ["AN", 2, 0, 3]])"));
  CHECK(stats(f).parallel == 1);
  check_lowering(dag, S(R"([["SP", 2, 2, 7, [3], 1], ["FU", 2, [2, 3]]])"));  // two reduction loops
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["FU", 2, [1, 2]]])")),
                    Catch::Contains("step 0 (FU)") && Catch::Contains("reduction"));
}

TEST_CASE("AN and PR: vectorize, unroll, auto_unroll_max_step", "[lower][AN][PR]") {
  auto dag = small_matmul();
  ir::PrimFunc f = check_lowering(
      dag,
      S(R"([["SP", 2, 1, 9, [3], 1], ["RE", 2, [0, 1, 3, 2]], ["AN", 2, 3, 2], ["AN", 2, 2, 1]])"));
  CHECK(stats(f).vectorized == 2);  // the init loop is vectorized too
  CHECK(stats(f).unrolled == 1);
  ir::PrimFunc g = check_lowering(
      dag, S(R"([["SP", 2, 2, 7, [7], 1], ["PR", 2, 0, "auto_unroll_max_step$64"]])"));
  // k.inner: 7 x 1 store fits 64; j: 9 x (7 + the init store) = 72 does not.
  CHECK(stats(g).unrolled == 1);
  ir::PrimFunc g2 = check_lowering(
      dag, S(R"([["SP", 2, 2, 7, [7], 1], ["PR", 2, 0, "auto_unroll_max_step$512"]])"));
  CHECK(stats(g2).unrolled == 2);  // i: 10 x 72 > 512
  ir::PrimFunc h = check_lowering(dag, S(R"([["PR", 2, 0, "auto_unroll_max_step$0"]])"));
  CHECK(stats(h).unrolled == 0);
}

TEST_CASE("FSP and FFSP follow earlier splits", "[lower][FSP][FFSP]") {
  auto dag =
      builtin_dag("matmul_add", {int64_t(12), int64_t(5), int64_t(10), std::string("float32")});
  // matmul = stage 2, out = stage 4.
  check_lowering(dag, S(R"([["SP", 2, 0, 12, [2, 3], 1], ["SP", 2, 3, 10, [5, 2], 1],
                            ["RE", 2, [0, 3, 1, 4, 6, 2, 5]],
                            ["FSP", 4, 0, 0, 2], ["FSP", 4, 3, 1, 2], ["RE", 4, [0, 3, 1, 4, 2, 5]],
                            ["CA", 2, 4, 3]])"));
  check_lowering(dag, S(R"([["SP", 2, 0, 12, [2, 3], 1], ["SP", 2, 3, 10, [5, 2], 1],
                            ["FU", 4, [0, 1]], ["FFSP", 4, 0, [0, 1], 1, 1]])"));
  check_lowering(dag, S(R"([["SP", 2, 0, 12, [2, 3], 1], ["FFSP", 4, 1, [0], 0, 0]])"));
}

TEST_CASE("a stage at the root gets what its consumers read, not its whole shape", "[lower][CR]") {
  // max_pool2d 1x2x8x8, 3x3 window, stride 2, padding 1: the pool reads rows and columns
  // 0..8 of the 10x10 pad_temp. TVM's InferBound sizes pad_temp (a root stage, not an
  // output) by that: 9x9, and the padding test on the far side is gone.
  auto dag = builtin_dag("max_pool2d", {int64_t(1), int64_t(2), int64_t(8), int64_t(8), int64_t(3),
                                        int64_t(2), int64_t(1)});
  for (const char* steps : {"[]", R"([["CR", 1], ["FU", 2, [0, 1]], ["AN", 2, 0, 3]])"}) {
    INFO("steps " << steps);
    ir::PrimFunc f = check_lowering(dag, S(steps));
    std::string text = ir::to_string(f.body);
    CHECK(text.find("pad_temp = allocate(float32, [1, 2, 9, 9], global)") != std::string::npos);
    CHECK(text.find("< 9") == std::string::npos);
  }
  // The output keeps its full shape however little of it a later stage would need.
  ir::PrimFunc f = check_lowering(small_matmul(), {});
  CHECK(ir::to_string(f.body).find("allocate") == std::string::npos);
}

TEST_CASE("a grouped convolution's input computed at the output-channel loop holds one group",
          "[lower][CA]") {
  // conv2d NHWC, 2 groups of 4 input and 4 output channels: output channel co reads input
  // channels floordiv(co, 4)*4 + rc. Inside a loop over pairs of output channels the pair is
  // in one group, so the copy P of the input attached there holds 4 channels, not all 8, as
  // TVM's InferBound gives (te_workload's GRP: 4x less work in the copy).
  using namespace mrd::ir;
  Tensor in = placeholder({1, 6, 6, 8}, "inputs");
  Tensor w = placeholder({3, 3, 4, 8}, "weight");
  Tensor p =
      compute({1, 6, 6, 8}, [&](Var n, Var h, Var x, Var c) { return in(n, h, x, c) * 1.0f; }, "P",
              {"n", "h", "w", "c"});
  IterVar rh = reduce_axis(0, 3, "rh"), rw = reduce_axis(0, 3, "rw"), rc = reduce_axis(0, 4, "rc");
  Tensor out =
      compute({1, 4, 4, 8},
              [&](Var n, Var h, Var x, Var co) {
                return sum(p(n, h + rh.var, x + rw.var, floordiv(co, Expr(4)) * Expr(4) + rc.var) *
                               w(rh.var, rw.var, rc.var, co),
                           {rh, rw, rc});
              },
              "conv", {"n", "h", "w", "co"});
  dag::ComputeDAG dag({in, w, out});
  ir::PrimFunc f = check_lowering(dag, S(R"([["SP", 3, 3, 8, [2], 1], ["CA", 1, 3, 3]])"));
  CHECK(ir::to_string(f.body).find("P = allocate(float32, [1, 3, 3, 4], global)") !=
        std::string::npos);
}

TEST_CASE("CA: compute_at at every level of a two-stage chain", "[lower][CA]") {
  // matmul_add: matmul (2) is read by out (4); split out so that each level exists.
  auto dag =
      builtin_dag("matmul_add", {int64_t(10), int64_t(4), int64_t(9), std::string("float32")});
  for (int level = 0; level < 4; ++level) {
    INFO("compute_at level " << level);
    std::string steps =
        R"([["SP", 4, 0, 10, [3], 1], ["SP", 4, 2, 9, [2], 1], ["RE", 4, [0, 2, 1, 3]],
                            ["CA", 2, 4, )" +
        std::to_string(level) + "]]";
    ir::PrimFunc f = check_lowering(dag, S(steps.c_str()));
    CHECK(stats(f).allocs == 1);
  }
  // An element-wise producer, attached inside a reduction's loops.
  auto mrr =
      builtin_dag("matmul_relu_relu", {int64_t(5), int64_t(3), int64_t(7), std::string("float32")});
  for (int level = 0; level < 3; ++level) {
    INFO("level " << level);
    std::string steps = R"([["SP", 4, 1, 7, [3], 1], ["CA", 3, 4, )" + std::to_string(level) + "]]";
    check_lowering(mrr, S(steps.c_str()));
  }
  // A chain: C at D at E.
  check_lowering(mrr, S(R"([["SP", 4, 0, 5, [2], 1], ["CA", 3, 4, 1], ["CA", 2, 3, 1]])"));
  // compute_root undoes it.
  check_lowering(dag, S(R"([["CA", 2, 4, 1], ["CR", 2]])"));
}

TEST_CASE("CHW: cache_write then compute_at, as the CPU sketches do", "[lower][CHW]") {
  auto dag = small_matmul();
  for (int level = 0; level < 4; ++level) {
    INFO("level " << level);
    std::string steps =
        R"([["CHW", 2, "local"], ["SP", 2, 0, 10, [2, 3], 1], ["SP", 2, 3, 9, [2, 2], 1],
                            ["SP", 2, 6, 7, [3], 1], ["RE", 2, [0, 3, 1, 4, 6, 2, 5, 7]],
                            ["FSP", 3, 0, 1, 2], ["FSP", 3, 3, 2, 2], ["RE", 3, [0, 3, 1, 4, 2, 5]],
                            ["CA", 2, 3, )" +
        std::to_string(level) + "]]";
    check_lowering(dag, S(steps.c_str()));
  }
  ir::PrimFunc f = check_lowering(dag, S(R"([["CHW", 2, "local"]])"));
  CHECK(stats(f).allocs == 1);
}

TEST_CASE("RF: rfactor of a sum and of a max", "[lower][RF]") {
  auto sm = builtin_dag("softmax", {int64_t(3), int64_t(23)});
  SECTION("factor the inner part, factor axis first or last") {
    check_lowering(sm, S(R"([["SP", 3, 1, 23, [5], 1], ["RF", 3, 2, 1]])"));
    check_lowering(sm, S(R"([["SP", 3, 1, 23, [5], 1], ["RF", 3, 2, 0]])"));
  }
  SECTION("factor the outer part, then reorder and vectorize") {
    check_lowering(
        sm,
        S(R"([["SP", 3, 1, 23, [4], 1], ["RF", 3, 1, 1], ["RE", 3, [0, 2, 1]], ["AN", 3, 2, 2]])"));
  }
  SECTION("both reductions, with compute_at as in the reference states") {
    check_lowering(sm, S(R"([["SP", 3, 1, 23, [5], 1], ["RF", 3, 1, 1], ["SP", 1, 1, 23, [4], 1],
                             ["RF", 1, 2, 1], ["RE", 1, [0, 2, 1]], ["CA", 5, 6, 1], ["CA", 4, 5, 0],
                             ["CA", 2, 3, 0]])"));
  }
  SECTION("a matmul reduction") {
    check_lowering(small_matmul(), S(R"([["SP", 2, 2, 7, [2], 1], ["RF", 2, 3, 2]])"));
  }
}

TEST_CASE("CI: inline chains", "[lower][CI]") {
  auto mrr =
      builtin_dag("matmul_relu_relu", {int64_t(5), int64_t(3), int64_t(7), std::string("float32")});
  ir::PrimFunc f = check_lowering(mrr, S(R"([["CI", 3]])"));
  CHECK(stats(f).allocs == 1);  // only C
  auto sm = builtin_dag("softmax", {int64_t(3), int64_t(11)});
  ir::PrimFunc g = check_lowering(sm, S(R"([["CI", 2]])"));  // exp, read by two stages
  CHECK(stats(g).allocs == 2);
  auto dbr = builtin_dag("dense_bias_relu", {int64_t(4), int64_t(6), int64_t(5)});
  check_lowering(dbr, S(R"([["CI", 4], ["SP", 5, 0, 4, [3], 1], ["CA", 2, 5, 0]])"));
}

TEST_CASE("the gallery matmul_add record", "[lower]") {
  auto dag =
      builtin_dag("matmul_add", {int64_t(128), int64_t(128), int64_t(128), std::string("float32")});
  ir::PrimFunc f =
      check_lowering(dag, S(R"([["SP", 2, 0, 128, [2, 1, 4], 1], ["SP", 2, 4, 128, [1, 1, 8], 1],
      ["SP", 2, 8, 128, [4], 1], ["RE", 2, [0, 4, 1, 5, 8, 2, 6, 9, 3, 7]], ["FSP", 4, 0, 0, 2],
      ["FSP", 4, 3, 1, 2], ["RE", 4, [0, 3, 1, 4, 2, 5]], ["CA", 2, 4, 3], ["FU", 4, [0, 1]],
      ["AN", 4, 0, 3], ["PR", 2, 0, "auto_unroll_max_step$8"], ["AN", 2, 9, 2], ["AN", 4, 4, 2]])"),
                     1e-4);
  CHECK(stats(f).parallel == 1);
  CHECK(stats(f).vectorized >= 2);
}

TEST_CASE("hand-built DAGs: offset reduction axis, scalar output, an argument computed at",
          "[lower]") {
  using namespace mrd::ir;
  Tensor a = placeholder({6, 13}, "A");
  SECTION("a reduction axis starting at 2, split and factored") {
    IterVar k = reduce_axis(2, 13, "k");
    Tensor r = compute({6}, [&](Var i) { return sum(a(i, k) * a(i, k), {k}); }, "R", {"i"});
    dag::ComputeDAG dag({a, r});
    check_lowering(dag, {});
    check_lowering(dag, S(R"([["SP", 1, 1, 11, [4], 1]])"));
    check_lowering(dag, S(R"([["SP", 1, 1, 11, [4], 1], ["RF", 1, 2, 1]])"));
  }
  SECTION("a scalar output: full reduction with rfactor") {
    IterVar k = reduce_axis(0, 6, "k");
    IterVar l = reduce_axis(0, 13, "l");
    Tensor t = compute(
        {},
        [&](const std::vector<Var>&) {
          return max(a(k, l), {k, l});
        },
        "T");
    dag::ComputeDAG dag({a, t});
    check_lowering(dag, {});
    check_lowering(dag, S(R"([["SP", 1, 1, 13, [5], 1], ["RF", 1, 2, 0]])"));
    check_lowering(
        dag,
        S(R"([["FU", 1, [0, 1]], ["SP", 1, 0, 78, [8], 1], ["RF", 1, 1, 0], ["AN", 1, 0, 3]])"));
  }
  SECTION("an intermediate that is also an argument, computed at its reader") {
    Tensor d = compute({6, 13}, [&](Var i, Var j) { return a(i, j) * 2.0f; }, "D", {"i", "j"});
    Tensor e = compute({6, 13}, [&](Var i, Var j) { return d(i, j) + 1.0f; }, "E", {"i", "j"});
    dag::ComputeDAG dag({a, d, e});
    ir::PrimFunc f = check_lowering(dag, S(R"([["SP", 2, 1, 13, [4], 1], ["CA", 1, 2, 1]])"));
    CHECK(f.params.size() == 3);
    CHECK(stats(f).allocs == 0);  // D is written straight into its argument
  }
}

TEST_CASE("limits: split lengths and iterator counts", "[lower][errors]") {
  auto dag = small_matmul();
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["SP", 2, 0, 10, [4294967296], 1]])")),
                    Catch::Contains("step 0 (SP)") && Catch::Contains("out of range"));
  std::string many = R"([["SP", 2, 0, 10, [)";
  for (int i = 0; i < 300; ++i) many += i ? ", 1" : "1";
  many += "], 1]]";
  CHECK_THROWS_WITH(lower::lower(dag, S(many.c_str())), Catch::Contains("more than 256 iterators"));
}

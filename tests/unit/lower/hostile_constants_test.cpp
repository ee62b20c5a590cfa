// Constant expressions come from untrusted DAGs: folding them must give the value the
// interpreters compute (wrapped to the type), a division by a constant zero must be a
// UserError, and extents or buffer sizes beyond the int32 index space must be UserErrors.
// Built with -fsanitize=undefined these tests also show that no step is undefined behaviour.
#include <catch2/catch.hpp>
#include <limits>
#include <vector>

#include "common/ir/printer.h"
#include "common/ir/scalar_semantics.h"
#include "common/ir/te.h"
#include "common/lower/arith.h"
#include "common/lower/simplify.h"
#include "common/schedule/transform_steps.h"
#include "common/util/error.h"
#include "tests/unit/lower/lower_test_util.h"

using namespace mrd;
using namespace mrd::ir;
using Catch::Contains;
using lower::simplify_expr;

namespace {

constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();

Expr imm(DType t, int64_t v) { return IntImmNode::make(t, v); }

int64_t folded(const Expr& e) {
  Expr s = simplify_expr(e);
  const int64_t* c = as_const_int(s);
  INFO(to_string(e) << " simplified to " << to_string(s));
  REQUIRE(c != nullptr);
  return *c;
}

std::vector<schedule::Step> S(const char* text) {
  return schedule::steps_from_json(nlohmann::json::parse(text));
}

}  // namespace

TEST_CASE("constant folding computes every operator as the interpreters do", "[lower][fold]") {
  const BinaryOp ops[] = {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div,
                          BinaryOp::FloorDiv, BinaryOp::FloorMod, BinaryOp::Min, BinaryOp::Max,
                          BinaryOp::EQ, BinaryOp::NE, BinaryOp::LT, BinaryOp::LE,
                          BinaryOp::GT, BinaryOp::GE};
  struct Case {
    DType t;
    std::vector<int64_t> values;
  };
  const Case cases[] = {
      {DType::Int64, {kMin64, kMin64 + 1, -7, -2, -1, 0, 1, 2, 7, kMax64 - 1, kMax64}},
      {DType::Int32, {kMin32, kMin32 + 1, -7, -1, 0, 1, 7, 65536, kMax32}}};
  int folds = 0;
  for (const Case& c : cases) {
    for (BinaryOp op : ops) {
      for (int64_t a : c.values) {
        for (int64_t b : c.values) {
          if (b == 0 && is_division(op)) continue;
          Expr e = BinaryNode::make(op, imm(c.t, a), imm(c.t, b));
          DType rt = is_comparison(op) ? DType::Bool : c.t;
          INFO(dtype_name(c.t) << " " << a << " " << binary_op_name(op) << " " << b);
          Expr s = simplify_expr(e);
          REQUIRE(s.as<IntImmNode>() != nullptr);
          CHECK(s->dtype == rt);
          CHECK(*as_const_int(s) == wrap_int(rt, int_binary(op, a, b)));
          ++folds;
        }
      }
    }
  }
  CHECK(folds > 2000);
}

TEST_CASE("overflowing constants wrap to the type", "[lower][fold]") {
  CHECK(folded(imm(DType::Int32, kMax32) + imm(DType::Int32, 1)) == kMin32);
  CHECK(folded(imm(DType::Int32, 65536) * imm(DType::Int32, 65536)) == 0);
  CHECK(folded(imm(DType::Int32, kMin32) - imm(DType::Int32, 1)) == kMax32);
  CHECK(folded(imm(DType::Int64, kMax64) + imm(DType::Int64, 1)) == kMin64);
  CHECK(folded(imm(DType::Int64, kMax64) * imm(DType::Int64, 2)) == -2);
  CHECK(folded(imm(DType::Int64, kMin64) * imm(DType::Int64, -1)) == kMin64);
  CHECK(folded(imm(DType::Int64, kMin64) / imm(DType::Int64, -1)) == kMin64);
  CHECK(folded(floordiv(imm(DType::Int64, kMin64), imm(DType::Int64, -1))) == kMin64);
  CHECK(folded(floormod(imm(DType::Int64, kMin64), imm(DType::Int64, -1))) == 0);
  CHECK(folded(imm(DType::Int32, kMin32) / imm(DType::Int32, -1)) == kMin32);
  // Floor semantics of the generated C's mrd_floordiv / mrd_floormod.
  CHECK(folded(floordiv(imm(DType::Int32, -7), imm(DType::Int32, 2))) == -4);
  CHECK(folded(floormod(imm(DType::Int32, -7), imm(DType::Int32, 2))) == 1);
  CHECK(folded(floormod(imm(DType::Int32, 7), imm(DType::Int32, -2))) == -1);
  CHECK(folded(imm(DType::Int32, -7) / imm(DType::Int32, 2)) == -3);
  // A narrowing cast wraps as C's conversion does.
  CHECK(folded(cast(DType::Int32, imm(DType::Int64, (int64_t{1} << 32) + 5))) == 5);
  CHECK(folded(cast(DType::Int32, imm(DType::Int64, kMax64))) == -1);
}

TEST_CASE("linear forms wrap their coefficients", "[lower][fold]") {
  Var x("x"), y("y", DType::Int64);
  // (2^63 - 1)^2 = 1 modulo 2^64.
  CHECK(to_string(simplify_expr((y * imm(DType::Int64, kMax64)) * imm(DType::Int64, kMax64))) ==
        "y");
  CHECK(folded((x * Expr(65536)) * Expr(65536)) == 0);
  CHECK(to_string(simplify_expr(y + imm(DType::Int64, kMin64) + imm(DType::Int64, kMin64))) ==
        "y");
  // INT64_MIN has no positive counterpart: the constant is added, not subtracted.
  Expr m = simplify_expr(y - imm(DType::Int64, kMin64));
  const BinaryNode* b = m.as<BinaryNode>();
  REQUIRE(b != nullptr);
  CHECK(b->op == BinaryOp::Add);
  CHECK(*as_const_int(b->b) == kMin64);
  Expr m32 = simplify_expr(x * Expr(static_cast<int>(kMin32)) + x * Expr(static_cast<int>(kMin32)));
  CHECK(folded(m32) == 0);  // 2 * -2^31 = 0 modulo 2^32
}

TEST_CASE("integer division by a constant zero is a UserError", "[lower][fold]") {
  Var x("x"), y("y");
  CHECK_THROWS_AS(simplify_expr(imm(DType::Int32, 5) / imm(DType::Int32, 0)), UserError);
  CHECK_THROWS_WITH(simplify_expr(floordiv(x, Expr(0))),
                    Contains("floordiv") && Contains("constant zero"));
  CHECK_THROWS_WITH(simplify_expr(floormod(x, Expr(0))), Contains("constant zero"));
  // A divisor that only folds to zero.
  CHECK_THROWS_AS(simplify_expr(floormod(x, y - y)), UserError);
  Expr zero64 = Expr(int64_t{3}) - Expr(int64_t{3});
  CHECK_THROWS_AS(simplify_expr(imm(DType::Int64, kMin64) / zero64), UserError);
  // Float division by zero is IEEE arithmetic, not an error.
  CHECK_NOTHROW(simplify_expr(Expr(1.0f) / Expr(0.0f)));
}

TEST_CASE("bounds of hostile ranges are exact or unknown", "[lower][fold]") {
  Var x("x", DType::Int64), i("i");
  lower::VarRanges r{{x.as<VarNode>(), {kMin64, kMin64 + 1}}, {i.as<VarNode>(), {0, 1 << 30}}};
  auto fm = lower::const_bound(floormod(x, Expr(int64_t{3})), r);
  REQUIRE(fm);
  CHECK(fm->lo == floor_mod(kMin64, 3));
  CHECK(fm->hi == floor_mod(kMin64 + 1, 3));
  // Across a multiple of 3 the remainder may be anything.
  lower::VarRanges wide{{x.as<VarNode>(), {kMin64, kMin64 + 5}}};
  CHECK(lower::const_bound(floormod(x, Expr(int64_t{3})), wide)->hi == 2);
  auto fd = lower::const_bound(floordiv(x, Expr(int64_t{3})), r);
  REQUIRE(fd);
  CHECK(fd->lo == floor_div(kMin64, 3));
  CHECK_FALSE(lower::const_bound(x * x, r));
  CHECK_FALSE(lower::const_bound(x - Expr(int64_t{1}), r));
  // An int32 expression whose exact range leaves int32 may wrap: its bound is unknown.
  CHECK_FALSE(lower::const_bound(i * Expr(4), r));
  CHECK(lower::const_bound(i * Expr(1), r)->hi == 1 << 30);
  CHECK_FALSE(lower::const_bound(cast(DType::Int32, x), r));
  // floordiv by a range-decided remainder next to INT64_MIN must not fold unsoundly.
  CHECK_NOTHROW(simplify_expr(floordiv(x + Expr(int64_t{1}), Expr(int64_t{3})), r));
  CHECK_NOTHROW(simplify_expr(floormod(x, Expr(int64_t{7})), r));
}

TEST_CASE("a loop whose last value overflows gives no range", "[lower][fold]") {
  Var v("v", DType::Int64);
  Buffer b = BufferNode::make("b", DType::Float32, {4});
  Stmt loop = ForNode::make(v, imm(DType::Int64, kMax64 - 1), imm(DType::Int64, 10),
                            ForKind::Serial,
                            IfThenElseNode::make(v > imm(DType::Int64, 0),
                                                 StoreNode::make(b, {Expr(0)}, Expr(1.0f))));
  Stmt s = lower::simplify(loop);
  // The guard stays: no range was derived from the overflowing loop bounds.
  REQUIRE(s.as<ForNode>() != nullptr);
  CHECK(s.as<ForNode>()->body.as<IfThenElseNode>() != nullptr);
}

TEST_CASE("lowered hostile constants match the reference interpreter", "[lower][fold]") {
  Tensor a = placeholder({16}, "A", DType::Int32);
  Tensor b = compute(
      {16},
      [&](Var i) {
        return a(i) + (imm(DType::Int32, kMax32) + imm(DType::Int32, 1)) +
               imm(DType::Int32, 65536) * imm(DType::Int32, 65536) +
               floordiv(imm(DType::Int32, kMin32), imm(DType::Int32, -1));
      },
      "B");
  dag::ComputeDAG d32({a, b});
  lower::testing::check_lowering(d32, {});
  lower::testing::check_lowering(d32, S(R"([["SP", 1, 0, 16, [2147483647], 1]])"));

  // The constants fold to -4 (all modulo 2^64); the lowered code must not keep any of the
  // intermediate values near 2^63.
  Tensor c = placeholder({8}, "C", DType::Int64);
  Tensor e = compute(
      {8},
      [&](Var i) {
        return c(i) + imm(DType::Int64, kMin64) / imm(DType::Int64, -1) +
               imm(DType::Int64, kMin64) +
               floormod(imm(DType::Int64, kMin64), imm(DType::Int64, -1)) +
               (imm(DType::Int64, kMax64) + imm(DType::Int64, kMax64)) +
               imm(DType::Int64, kMax64) * imm(DType::Int64, 2);
      },
      "E");
  dag::ComputeDAG d64({c, e});
  lower::testing::check_lowering(d64, {});
  std::vector<interp::HostTensor> in{interp::make_input(*c.op(), 3)};
  auto out = interp::evaluate(d64, in);
  for (size_t k = 0; k < in[0].data.size(); ++k) CHECK(out[0].data[k] == in[0].data[k] - 4);
}

TEST_CASE("a division by a constant zero in a DAG fails lowering cleanly", "[lower][fold]") {
  Tensor a = placeholder({8}, "A", DType::Int32);
  Tensor b = compute({8}, [&](Var i) { return floordiv(a(i), Expr(0)); }, "B");
  CHECK_THROWS_WITH(lower::lower(dag::ComputeDAG({a, b}), {}), Contains("constant zero"));
  Tensor c = compute({8}, [&](Var i) { return floormod(a(i), Expr(2) - Expr(2)); }, "C");
  CHECK_THROWS_AS(lower::lower(dag::ComputeDAG({a, c}), {}), UserError);
  // INT32_MAX + 1 - INT32_MIN wraps to zero.
  Tensor e = compute(
      {8},
      [&](Var i) {
        return a(i) / (imm(DType::Int32, kMax32) + imm(DType::Int32, 1) -
                       imm(DType::Int32, kMin32));
      },
      "E");
  CHECK_THROWS_AS(lower::lower(dag::ComputeDAG({a, e}), {}), UserError);
}

TEST_CASE("extents beyond the int32 index space are UserErrors", "[lower][fold]") {
  // Each extent fits int32; their product (the buffer size) does not.
  Tensor a = placeholder({65536, 65536}, "A");
  Tensor b = compute({65536, 65536}, [&](Var i, Var j) { return a(i, j) * 2.0f; }, "B");
  dag::ComputeDAG big({a, b});
  CHECK_THROWS_WITH(lower::lower(big, S(R"([["FU", 1, [0, 1]]])")), Contains("int32"));
  CHECK_THROWS_WITH(lower::lower(big, {}), Contains("int32"));

  // A reduction over 2^40 elements, one starting at INT64_MIN and one whose end overflows
  // int32.
  Tensor p = placeholder({4}, "P");
  IterVar k = reduce_axis(0, int64_t{1} << 40, "k");
  Tensor s = compute({4}, [&](Var i) { return sum(p(i) * 1.0f, {k}); }, "S");
  CHECK_THROWS_WITH(lower::lower(dag::ComputeDAG({p, s}), {}), Contains("int32"));
  IterVar k1 = reduce_axis(kMin64, kMin64 + 2, "k1");
  Tensor s1 = compute({4}, [&](Var i) { return sum(p(i) * 1.0f, {k1}); }, "S1");
  CHECK_THROWS_WITH(lower::lower(dag::ComputeDAG({p, s1}), {}), Contains("int32"));
  IterVar k2 = reduce_axis(kMax32 - 1, kMax32 + 1, "k2");
  Tensor s2 = compute({4}, [&](Var i) { return sum(p(i) * 1.0f, {k2}); }, "S2");
  CHECK_THROWS_WITH(lower::lower(dag::ComputeDAG({p, s2}), {}),
                    Contains("k2") && Contains("does not fit an int32 index"));
}

TEST_CASE("index constants and products are checked against int32", "[lower][fold]") {
  CHECK(*as_const_int(lower::index_imm(kMax32, "extent")) == kMax32);
  CHECK_THROWS_WITH(lower::index_imm(kMax32 + 1, "extent"),
                    Contains("extent 2147483648 does not fit an int32 index"));
  CHECK(lower::index_mul(65536, 32767, "fused extent") == 65536 * 32767);
  CHECK_THROWS_WITH(lower::index_mul(65536, 65536, "fused extent"), Contains("fused extent"));
  CHECK_THROWS_AS(lower::index_mul(kMax64, kMax64, "stride"), UserError);
}

TEST_CASE("a follow split whose length product overflows is a UserError", "[lower][fold]") {
  auto dag = lower::testing::builtin_dag(
      "matmul_add", {int64_t(8), int64_t(4), int64_t(6), std::string("float32")});
  CHECK_THROWS_WITH(
      lower::lower(dag, S(R"([["SP", 2, 0, 8, [2147483647, 2147483647, 2147483647], 1],
                              ["FSP", 4, 0, 0, 1]])")),
      Contains("step 1 (FSP)") && Contains("overflows"));
  // Two of them multiply to 2^62 - 2^32 + 1, which then fails the int32 split check.
  CHECK_THROWS_WITH(lower::lower(dag, S(R"([["SP", 2, 0, 8, [2147483647, 2147483647], 1],
                                           ["FSP", 4, 0, 0, 1]])")),
                    Contains("step 1 (FSP)"));
  lower::testing::check_lowering(dag, S(R"([["SP", 2, 0, 8, [2, 2, 2], 1], ["FSP", 4, 0, 0, 2]])"));
}

// The simplifier and the unroll pass on hand-built IR.
#include "common/lower/simplify.h"

#include <catch2/catch.hpp>
#include <optional>

#include "common/ir/printer.h"
#include "common/lower/unroll_loop.h"

using namespace mrd;
using namespace mrd::ir;
using lower::simplify_expr;

TEST_CASE("simplify folds constants and cancels linear terms", "[lower][simplify]") {
  Var x("x"), y("y");
  CHECK(to_string(simplify_expr(x * Expr(1) + Expr(0))) == "x");
  CHECK(*as_const_int(simplify_expr((x * Expr(8) + Expr(7)) - x * Expr(8) + Expr(1))) == 8);
  CHECK(*as_const_int(simplify_expr(Expr(3) * Expr(4) - Expr(2))) == 10);
  CHECK(to_string(simplify_expr(x + y - x)) == "y");
  lower::VarRanges r{{x.as<VarNode>(), {0, 7}}, {y.as<VarNode>(), {0, 3}}};
  CHECK(*as_const_int(simplify_expr(floordiv(x, Expr(8)), r)) == 0);
  CHECK(to_string(simplify_expr(floormod(x, Expr(8)), r)) == "x");
  CHECK(to_string(simplify_expr(floordiv(y * Expr(8) + x, Expr(8)), r)) == "y");
  CHECK(to_string(simplify_expr(floormod(y * Expr(8) + x, Expr(8)), r)) == "x");
  CHECK(*as_const_int(simplify_expr(x < Expr(8), r)) == 1);
  CHECK(*as_const_int(simplify_expr(x >= Expr(8), r)) == 0);
  CHECK(simplify_expr(x < Expr(5), r).as<BinaryNode>() != nullptr);  // not provable
  CHECK(to_string(simplify_expr(select(Expr(1) < Expr(2), x, y))) == "x");
}

TEST_CASE("simplify recombines the pieces of a split index, as TVM's canonical simplifier", "[lower][simplify]") {
  Var f("f"), i("i"), g("g");
  // a[floordiv(f, 64), floormod(f, 64), i] of a [8, 64, 128] tensor is a[f * 128 + i].
  CHECK(to_string(simplify_expr(floordiv(f, Expr(64)) * Expr(8192) + floormod(f, Expr(64)) * Expr(128) + i)) ==
        "((f*128) + i)");
  CHECK(to_string(simplify_expr(floormod(f, Expr(4)) + floordiv(f, Expr(4)) * Expr(4))) == "f");
  // Nested: the recombined x is itself a split of f.
  Expr x = floordiv(f, Expr(4)) * Expr(4) + floormod(f, Expr(4)) + g * Expr(32);
  CHECK(to_string(simplify_expr(floordiv(x, Expr(8)) * Expr(8) + floormod(x, Expr(8)))) == "(f + (g*32))");
  // Left alone: other divisors, coefficients that are not k*c and k, different dividends.
  CHECK(to_string(simplify_expr(floordiv(f, Expr(64)) * Expr(100) + floormod(f, Expr(64)))) ==
        "((floordiv(f, 64)*100) + floormod(f, 64))");
  CHECK(to_string(simplify_expr(floordiv(f, Expr(8)) * Expr(4) + floormod(f, Expr(4)))) ==
        "((floordiv(f, 8)*4) + floormod(f, 4))");
  CHECK(to_string(simplify_expr(floordiv(f, Expr(4)) * Expr(4) + floormod(g, Expr(4)))) ==
        "((floordiv(f, 4)*4) + floormod(g, 4))");
}

TEST_CASE("simplify removes guards the loop ranges prove", "[lower][simplify]") {
  Buffer b = BufferNode::make("b", DType::Float32, {10});
  Var i("i");
  Stmt loop = ForNode::make(
      i, Expr(0), Expr(10), ForKind::Serial,
      IfThenElseNode::make(likely(i < Expr(10)), StoreNode::make(b, {i}, Expr(1.0f))));
  Stmt s = lower::simplify(loop);
  const ForNode* f = s.as<ForNode>();
  REQUIRE(f != nullptr);
  CHECK(f->body.as<StoreNode>() != nullptr);
  Stmt keep = ForNode::make(
      i, Expr(0), Expr(12), ForKind::Serial,
      IfThenElseNode::make(likely(i < Expr(10)), StoreNode::make(b, {i}, Expr(1.0f))));
  Stmt kept = lower::simplify(keep);
  CHECK(kept.as<ForNode>()->body.as<IfThenElseNode>() != nullptr);
}

TEST_CASE("unroll_loop follows TVM's auto_unroll_max_step rule", "[lower][unroll]") {
  Buffer b = BufferNode::make("b", DType::Float32, {64});
  Var i("i"), j("j"), k("k");
  auto nest = [&](int64_t max_step) {
    Stmt st = StoreNode::make(b, {i * Expr(8) + j}, Expr(1.0f));
    Stmt inner = ForNode::make(j, Expr(0), Expr(8), ForKind::Serial, st);
    return ForNode::make(i, Expr(0), Expr(8), ForKind::Serial, inner, max_step);
  };
  auto kinds = [](const Stmt& s) {
    const ForNode* o = s.as<ForNode>();
    return std::make_pair(o->for_kind, o->body.as<ForNode>()->for_kind);
  };
  CHECK(kinds(lower::unroll_loop(nest(64))) ==
        std::make_pair(ForKind::Unrolled, ForKind::Unrolled));
  CHECK(kinds(lower::unroll_loop(nest(16))) == std::make_pair(ForKind::Serial, ForKind::Unrolled));
  CHECK(kinds(lower::unroll_loop(nest(0))) == std::make_pair(ForKind::Serial, ForKind::Serial));
  CHECK(kinds(lower::unroll_loop(nest(-1))) == std::make_pair(ForKind::Serial, ForKind::Serial));
  // Extent-1 loops disappear, their variable bound to the start.
  Stmt one =
      ForNode::make(k, Expr(0), Expr(1), ForKind::Serial, StoreNode::make(b, {k}, Expr(2.0f)));
  Stmt unrolled = lower::unroll_loop(one);
  const StoreNode* st = unrolled.as<StoreNode>();
  REQUIRE(st != nullptr);
  CHECK(*as_const_int(st->indices[0]) == 0);
}

TEST_CASE("simplify turns a float division by a constant into a multiplication by its reciprocal, as TVM",
          "[lower][simplify]") {
  Var x("x", DType::Float32), i("i");
  auto reciprocal_of = [](const Expr& e) -> std::optional<double> {
    const auto* m = e.as<BinaryNode>();
    if (!m || m->op != BinaryOp::Mul) return std::nullopt;
    const auto* c = m->b.as<FloatImmNode>();
    if (!c) return std::nullopt;
    return c->value;
  };
  // x / 768f: the reciprocal of 768 rounded to float32, what TVM's make_const gives.
  Expr e = simplify_expr(x / Expr(768.0f));
  REQUIRE(reciprocal_of(e));
  CHECK(*reciprocal_of(e) == static_cast<double>(1.0f / 768.0f));
  CHECK(e.as<BinaryNode>()->a.same_as(x));
  CHECK(e->dtype == DType::Float32);
  // An int immediate divisor of a float takes the float's type first.
  CHECK(reciprocal_of(simplify_expr(x / Expr(4))) == 0.25);
  // Inside a larger expression too.
  Expr sq = simplify_expr(x / Expr(2.0f) - x * x / Expr(8.0f));
  CHECK(to_string(sq) == to_string(x * Expr(0.5f) - x * x * Expr(0.125f)));
  // Left as they are: a zero divisor (its reciprocal is not finite), a divisor that is not a
  // constant, and integer division.
  const auto* zero = simplify_expr(x / Expr(0.0f)).as<BinaryNode>();
  REQUIRE(zero);
  CHECK(zero->op == BinaryOp::Div);
  CHECK(simplify_expr(x / (x + Expr(1.0f))).as<BinaryNode>()->op == BinaryOp::Div);
  lower::VarRanges r{{i.as<VarNode>(), {0, 100}}};
  CHECK(to_string(simplify_expr(floordiv(i, Expr(7)), r)) == "floordiv(i, 7)");
}

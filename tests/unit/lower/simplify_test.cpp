// The simplifier and the unroll pass on hand-built IR.
#include "common/lower/simplify.h"

#include <catch2/catch.hpp>
#include <optional>

#include "common/interp/primfunc_eval.h"
#include "common/ir/printer.h"
#include "common/lower/unroll_loop.h"
#include "tests/unit/codegen/primfunc_builders.h"

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

TEST_CASE(
    "simplify folds float constants and TVM's float identities, and drops a store of what the "
    "element holds",
    "[lower][simplify]") {
  Var x("x", DType::Float32);
  auto is_const = [](const Expr& e, double v) {
    const auto* c = e.as<FloatImmNode>();
    return c && c->value == v && e->dtype == DType::Float32;
  };
  // TVM's TryConstFold: x * 1, 1 * x, x + 0, 0 + x, x - 0 and x / 1 are x; x * 0, 0 * x and 0 / x
  // are 0.
  CHECK(simplify_expr(x * Expr(1.0f)).same_as(x));
  CHECK(simplify_expr(Expr(1.0f) * x).same_as(x));
  CHECK(simplify_expr(x + Expr(0.0f)).same_as(x));
  CHECK(simplify_expr(Expr(0.0f) + x).same_as(x));
  CHECK(simplify_expr(x - Expr(0.0f)).same_as(x));
  CHECK(simplify_expr(x / Expr(1.0f)).same_as(x));
  CHECK(is_const(simplify_expr(x * Expr(0.0f)), 0));
  CHECK(is_const(simplify_expr(Expr(0.0f) * x), 0));
  CHECK(is_const(simplify_expr(Expr(0.0f) / x), 0));
  // Two constants fold in float32: 0.1f + 0.2f rounds as float32 arithmetic does.
  CHECK(is_const(simplify_expr(Expr(0.1f) + Expr(0.2f)), static_cast<double>(0.1f + 0.2f)));
  CHECK(is_const(simplify_expr(Expr(1.5f) * Expr(-2.0f)), -3.0));
  CHECK(is_const(simplify_expr(max(Expr(1.5f), Expr(-2.0f))), 1.5));
  CHECK(*as_const_int(simplify_expr(Expr(1.0f) < Expr(2.0f))) == 1);
  // A Winograd transform's products after unrolling: the constant matrix's 1 and 0 go away.
  Expr t = simplify_expr(x * Expr(-1.5f) * Expr(1.0f) + (x * Expr(2.0f)) * Expr(0.0f));
  CHECK(to_string(t) == to_string(x * Expr(-1.5f)));
  // Left alone: products with other constants, and 0 - x (a negation, not x).
  CHECK(to_string(simplify_expr(x * Expr(2.0f))) == to_string(x * Expr(2.0f)));
  CHECK(simplify_expr(Expr(0.0f) - x).as<BinaryNode>() != nullptr);
  CHECK(simplify_expr(x / Expr(0.0f)).as<BinaryNode>()->op == BinaryOp::Div);

  // acc[i] = acc[i] + in[i] * 0f is acc[i] = acc[i] after folding: TVM's RemoveNoOp drops it;
  // acc[i] = acc[i + 1] stays. Same results on the evaluator before and after.
  Var i("i");
  Buffer acc = BufferNode::make("acc", DType::Float32, {9}),
         in = BufferNode::make("in", DType::Float32, {8});
  Stmt body = SeqNode::make(
      {mrd::test::store(acc, i, mrd::test::load(acc, i) + mrd::test::load(in, i) * Expr(0.0f)),
       mrd::test::store(acc, i, mrd::test::load(acc, i + Expr(1)))});
  Stmt loop = ForNode::make(i, 0, 8, ForKind::Serial, body);
  Stmt simplified = lower::simplify(loop);
  std::string text = to_string(simplified);
  CHECK(text.find("acc[i] =") != std::string::npos);  // the second store
  CHECK(text.find("in[") == std::string::npos);       // the first is gone
  std::vector<double> a0{1, 2, 3, 4, 5, 6, 7, 8, 9}, in0{1, 1, 1, 1, 1, 1, 1, 1};
  std::vector<double> a1 = a0, in1 = in0;
  interp::eval_primfunc(PrimFunc{{acc, in}, loop}, {&a0, &in0});
  interp::eval_primfunc(PrimFunc{{acc, in}, simplified}, {&a1, &in1});
  CHECK(a0 == a1);
}

namespace {

/// for (x = 0; x < 48; ++x) for (y = 0; y < 4; ++y) out[x*4 + y] = value, run on the primfunc
/// evaluator as written and after simplify.
struct DivisionKernel {
  Var x{"x"}, y{"y"};
  Buffer out = BufferNode::make("out", DType::Float32, {48 * 4});
  Stmt loop(const Expr& v) const {
    Stmt store = mrd::test::store(out, x * Expr(4) + y, CastNode::make(DType::Float32, v));
    return ForNode::make(x, 0, 48, ForKind::Serial, ForNode::make(y, 0, 4, ForKind::Serial, store));
  }
  std::vector<double> run(const Stmt& s) const {
    std::vector<double> o(48 * 4, -1.0);
    interp::eval_primfunc(PrimFunc{{out}, s}, {&o});
    return o;
  }
  /// The simplified value as printed, after checking it computes what `v` computes.
  std::string simplified(const Expr& v) const {
    Stmt before = loop(v), after = lower::simplify(before);
    INFO(to_string(before) << "\nbecame\n" << to_string(after));
    CHECK(run(after) == run(before));
    const auto* outer = after.as<ForNode>();
    const auto* inner = outer ? outer->body.as<ForNode>() : nullptr;
    const auto* st = inner ? inner->body.as<StoreNode>() : nullptr;
    REQUIRE(st);
    return to_string(st->value.as<CastNode>()->value);
  }
};

}  // namespace

TEST_CASE("simplify divides nested and scaled divisions once, as TVM's rewrite rules", "[lower][simplify]") {
  DivisionKernel k;
  Expr x = k.x, y = k.y;
  // floordiv(floordiv(x, c1), c2) and floordiv(floordiv(x, c1) + c2, c3), negative dividends too.
  CHECK(k.simplified(floordiv(floordiv(x, Expr(3)), Expr(4))) == "floordiv(x, 12)");
  CHECK(k.simplified(floordiv(floordiv(x - Expr(20), Expr(3)), Expr(4))) == "floordiv((x - 20), 12)");
  CHECK(k.simplified(floordiv(floordiv(x, Expr(3)) + Expr(2), Expr(5))) == "floordiv((x + 6), 15)");
  CHECK(k.simplified(floordiv(floordiv(x, Expr(3)) - Expr(7), Expr(2))) == "floordiv((x - 21), 6)");
  // (h*d + l) // (m*d) is h // m and (h*d + l) % (m*d) is (h % m)*d + l when 0 <= l < d.
  CHECK(k.simplified(floordiv(x * Expr(4) + y, Expr(16))) == "floordiv(x, 4)");
  CHECK(k.simplified(floormod(x * Expr(4) + y, Expr(16))) == "((floormod(x, 4)*4) + y)");
  CHECK(k.simplified(floordiv(x * Expr(4) + y + Expr(12), Expr(8))) == "(floordiv((x + 1), 2) + 1)");
  CHECK(k.simplified(floormod(x * Expr(4) + y + Expr(12), Expr(8))) == "((floormod((x + 1), 2)*4) + y)");
  CHECK(k.simplified(floordiv(x * Expr(12) + y * Expr(3), Expr(24))) == "floordiv(x, 2)");
  // Left alone: l can reach d (y + 1 spans [1, 4]; 9 is 8 + 1), and a divisor d does not divide.
  CHECK(k.simplified(floordiv(x * Expr(4) + y + Expr(9), Expr(8))) == "floordiv((((x*4) + y) + 9), 8)");
  CHECK(k.simplified(floordiv(x * Expr(3) + y, Expr(16))) == "floordiv(((x*3) + y), 16)");
}

TEST_CASE(
    "simplify takes a divisor's multiples out without bounds on them, as TVM's rule for "
    "floordiv(x*c1 + y, c2)",
    "[lower][simplify]") {
  Var x("x"), y("y");
  // Nothing bounds x: c1 = 8 divides c2 = 32 and y = 7 is in [0, 8), which is all the rule needs.
  CHECK(to_string(simplify_expr(floordiv(x * Expr(8) + Expr(7), Expr(32)))) == "floordiv(x, 4)");
  CHECK(to_string(simplify_expr(floordiv(x * Expr(8), Expr(32)))) == "floordiv(x, 4)");
  CHECK(to_string(simplify_expr(floormod(x * Expr(8) + Expr(7), Expr(32)))) ==
        "((floormod(x, 4)*8) + 7)");
  CHECK(to_string(simplify_expr(floordiv(y * Expr(64) + x * Expr(8) + Expr(7), Expr(32)))) ==
        "((y*2) + floordiv(x, 4))");
  // So the two ends of a split channel index's group are one group: the extent bound
  // inference takes for a grouped convolution's input.
  Expr lo = floordiv(y * Expr(64) + x * Expr(8), Expr(32));
  Expr hi = floordiv(y * Expr(64) + x * Expr(8) + Expr(7), Expr(32));
  CHECK(*as_const_int(simplify_expr(hi - lo)) == 0);
  // A constant of c1 or more: its multiples of c1 go with x.
  CHECK(to_string(simplify_expr(floordiv(x * Expr(8) + Expr(9), Expr(32)))) ==
        "floordiv((x + 1), 4)");
  // Left alone: an unbounded low part, a c1 that does not divide c2.
  CHECK(to_string(simplify_expr(floordiv(x * Expr(8) + y, Expr(32)))) ==
        "floordiv(((x*8) + y), 32)");
  CHECK(to_string(simplify_expr(floordiv(x * Expr(3) + Expr(1), Expr(32)))) ==
        "floordiv(((x*3) + 1), 32)");
}

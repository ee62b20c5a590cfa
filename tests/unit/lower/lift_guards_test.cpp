// Guard lifting on hand-built IR: before and expected, compared as printed IR.
#include "common/lower/lift_guards.h"

#include <catch2/catch.hpp>

#include "common/ir/printer.h"

using namespace mrd;
using namespace mrd::ir;

namespace {

Stmt serial(const Var& v, int64_t extent, Stmt body) {
  return ForNode::make(v, Expr(0), Expr(static_cast<int>(extent)), ForKind::Serial, std::move(body));
}

}  // namespace

TEST_CASE("lift_guards moves a guard invariant in a nest of serial loops around it", "[lower][lift_guards]") {
  Buffer b = BufferNode::make("b", DType::Float32, {4, 5});
  Var n("n"), i("i"), j("j");
  Expr guard = likely(n < Expr(3));
  Stmt st = StoreNode::make(b, {i, j}, Expr(1.0f));
  Stmt before = serial(i, 4, serial(j, 5, IfThenElseNode::make(guard, st)));
  Stmt expected = IfThenElseNode::make(guard, serial(i, 4, serial(j, 5, st)));
  CHECK(to_string(lower::lift_guards(before)) == to_string(expected));
}

TEST_CASE("lift_guards stops at the loop whose variable the guard uses", "[lower][lift_guards]") {
  Buffer b = BufferNode::make("b", DType::Float32, {4, 5});
  Var i("i"), j("j");
  Expr guard = i < Expr(3);
  Stmt st = StoreNode::make(b, {i, j}, Expr(1.0f));
  Stmt before = serial(i, 4, serial(j, 5, IfThenElseNode::make(guard, st)));
  Stmt expected = serial(i, 4, IfThenElseNode::make(guard, serial(j, 5, st)));
  CHECK(to_string(lower::lift_guards(before)) == to_string(expected));
}

TEST_CASE("lift_guards leaves guards with loads, else cases and non-serial loops", "[lower][lift_guards]") {
  Buffer b = BufferNode::make("b", DType::Float32, {5});
  Buffer flag = BufferNode::make("flag", DType::Int32, {1});
  Var j("j");
  Stmt st = StoreNode::make(b, {j}, Expr(1.0f));
  Stmt loaded = serial(j, 5, IfThenElseNode::make(BufferLoadNode::make(flag, {Expr(0)}) > Expr(0), st));
  CHECK(lower::lift_guards(loaded).same_as(loaded));
  Var n("n");
  Stmt with_else = serial(j, 5, IfThenElseNode::make(n < Expr(3), st, StoreNode::make(b, {j}, Expr(2.0f))));
  CHECK(lower::lift_guards(with_else).same_as(with_else));
  Stmt parallel = ForNode::make(j, Expr(0), Expr(5), ForKind::Parallel, IfThenElseNode::make(n < Expr(3), st));
  CHECK(lower::lift_guards(parallel).same_as(parallel));
}

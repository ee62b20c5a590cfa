// Allocation placement (TVM's StorageRewrite attach scopes) on hand-built IR, compared as
// printed IR.
#include "common/lower/hoist_allocations.h"

#include <catch2/catch.hpp>

#include "common/ir/printer.h"

using namespace mrd;
using namespace mrd::ir;

TEST_CASE("hoist_allocations moves an allocation to the top of its parallel task", "[lower][hoist_allocations]") {
  Buffer out = BufferNode::make("out", DType::Float32, {64});
  Buffer acc = BufferNode::make("acc", DType::Float32, {4}, MemScope::Local);
  Var p("p"), i("i"), j("j");
  Stmt use = SeqNode::make({StoreNode::make(acc, {Expr(j)}, Expr(0.0f)),
                            StoreNode::make(out, {p * 16 + i * 4 + j}, BufferLoadNode::make(acc, {Expr(j)}))});
  auto inner = [&](Stmt s) { return ForNode::make(j, Expr(0), Expr(4), ForKind::Unrolled, std::move(s)); };
  auto middle = [&](Stmt s) { return ForNode::make(i, Expr(0), Expr(4), ForKind::Serial, std::move(s)); };
  auto task = [&](Stmt s) { return ForNode::make(p, Expr(0), Expr(4), ForKind::Parallel, std::move(s)); };

  Stmt before = task(middle(AllocateNode::make(acc, inner(use))));
  Stmt expected = task(AllocateNode::make(acc, middle(inner(use))));
  CHECK(to_string(lower::hoist_allocations(before)) == to_string(expected));
}

TEST_CASE("hoist_allocations moves allocations outside parallel loops to the function body", "[lower][hoist_allocations]") {
  Buffer out = BufferNode::make("out", DType::Float32, {16});
  Buffer t1 = BufferNode::make("t1", DType::Float32, {16});
  Buffer t2 = BufferNode::make("t2", DType::Float32, {4}, MemScope::Local);
  Var i("i"), k("k");
  Stmt first = ForNode::make(i, Expr(0), Expr(16), ForKind::Serial,
                             AllocateNode::make(t1, SeqNode::make({StoreNode::make(t1, {Expr(i)}, Expr(1.0f)),
                                                                   StoreNode::make(out, {Expr(i)}, BufferLoadNode::make(t1, {Expr(i)}))})));
  Stmt second = ForNode::make(k, Expr(0), Expr(4), ForKind::Serial,
                              AllocateNode::make(t2, StoreNode::make(t2, {Expr(k)}, Expr(2.0f))));
  Stmt before = SeqNode::make({first, second});

  Stmt first_moved = ForNode::make(i, Expr(0), Expr(16), ForKind::Serial,
                                   SeqNode::make({StoreNode::make(t1, {Expr(i)}, Expr(1.0f)),
                                                  StoreNode::make(out, {Expr(i)}, BufferLoadNode::make(t1, {Expr(i)}))}));
  Stmt second_moved = ForNode::make(k, Expr(0), Expr(4), ForKind::Serial, StoreNode::make(t2, {Expr(k)}, Expr(2.0f)));
  // In the order the allocations were met, the first outermost.
  Stmt expected = AllocateNode::make(t1, AllocateNode::make(t2, SeqNode::make({first_moved, second_moved})));
  CHECK(to_string(lower::hoist_allocations(before)) == to_string(expected));
}

// Memory sharing as TVM's StorageRewrite plans it, on hand-built IR: which allocations are
// left (compared as printed IR), and that the function computes what it computed before
// (primfunc evaluator).
#include "common/lower/storage_rewrite.h"

#include <catch2/catch.hpp>
#include <functional>

#include "common/interp/primfunc_eval.h"
#include "common/ir/printer.h"
#include "common/ir/stmt_functor.h"
#include "common/ir/te.h"
#include "tests/unit/lower/lower_test_util.h"

using namespace mrd;
using namespace mrd::ir;

namespace {

/// The buffers allocated in s, outermost first.
std::vector<Buffer> allocations(const Stmt& s) {
  struct Collect : StmtVisitor {
    std::vector<Buffer> found;
    void visit_(const AllocateNode* op, const Stmt& self) override {
      found.push_back(op->buffer);
      StmtVisitor::visit_(op, self);
    }
  } c;
  c.visit(s);
  return c.found;
}

/// Runs `before` and storage_rewrite(before) on in = 1..n and returns both outputs.
void check_same_output(const Buffer& in, const Buffer& out, const Stmt& before) {
  auto run = [&](const Stmt& body) {
    std::vector<double> a(in->num_elements()), b(out->num_elements(), -1);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i + 1);
    interp::eval_primfunc(PrimFunc{{in, out}, body}, {&a, &b});
    return b;
  };
  CHECK(run(lower::storage_rewrite(before)) == run(before));
}

Stmt loop(const Var& v, int64_t extent, Stmt body, ForKind kind = ForKind::Serial) {
  return ForNode::make(v, Expr(0), Expr(extent), kind, std::move(body));
}

Expr load(const Buffer& b, Expr index) { return BufferLoadNode::make(b, {std::move(index)}); }
Stmt store(const Buffer& b, Expr index, Expr value) { return StoreNode::make(b, {std::move(index)}, std::move(value)); }

}  // namespace

TEST_CASE("storage_rewrite: a chain of elementwise stages computes in one buffer, in place", "[lower][storage_rewrite]") {
  Buffer in = BufferNode::make("in", DType::Float32, {16});
  Buffer out = BufferNode::make("out", DType::Float32, {16});
  Buffer t1 = BufferNode::make("t1", DType::Float32, {16});
  Buffer t2 = BufferNode::make("t2", DType::Float32, {16});
  Buffer t3 = BufferNode::make("t3", DType::Float32, {4, 4});
  Var i("i"), j("j"), k("k"), m("m");
  auto stages = [&](const Buffer& b1, const Buffer& b2, const Buffer& b3) {
    return SeqNode::make({loop(i, 16, store(b1, i, load(in, i) * Expr(2.0f))),
                          loop(j, 16, store(b2, j, load(b1, j) + Expr(1.0f))),
                          loop(k, 16, store(b3, k, load(b2, k) * load(b2, k))),
                          loop(m, 16, store(out, m, load(b3, m) - Expr(3.0f)))});
  };
  Stmt before = AllocateNode::make(t1, AllocateNode::make(t2, AllocateNode::make(t3, stages(t1, t2, t3))));
  Stmt after = lower::storage_rewrite(before);
  // t3 has another shape but as many elements: the memory is a flat buffer of 16.
  std::vector<Buffer> left = allocations(after);
  REQUIRE(left.size() == 1);
  CHECK(left[0]->shape == std::vector<int64_t>{16});
  CHECK(to_string(after) == to_string(AllocateNode::make(left[0], stages(left[0], left[0], left[0]))));
  check_same_output(in, out, before);
}

TEST_CASE("storage_rewrite: a buffer dead before another starts lends it its memory, a live one does not", "[lower][storage_rewrite]") {
  Buffer in = BufferNode::make("in", DType::Float32, {16});
  Buffer out = BufferNode::make("out", DType::Float32, {16});
  Buffer t1 = BufferNode::make("t1", DType::Float32, {16});
  Buffer t2 = BufferNode::make("t2", DType::Float32, {16});
  Buffer t3 = BufferNode::make("t3", DType::Float32, {16});
  Var i("i"), j("j"), k("k"), m("m");
  auto stages = [&](const Buffer& b1, const Buffer& b2, const Buffer& b3) {
    return SeqNode::make({loop(i, 16, store(b1, i, load(in, i) * Expr(2.0f))),
                          // Reversed: not in place, t1 stays live until this loop ends.
                          loop(j, 16, store(b2, j, load(b1, Expr(15) - j) + Expr(1.0f))),
                          loop(k, 16, store(b3, k, cast(DType::Float32, k))),
                          loop(m, 16, store(out, m, load(b2, m) + load(b3, m)))});
  };
  Stmt before = AllocateNode::make(t1, AllocateNode::make(t2, AllocateNode::make(t3, stages(t1, t2, t3))));
  Stmt after = lower::storage_rewrite(before);
  CHECK(to_string(after) == to_string(AllocateNode::make(t1, AllocateNode::make(t2, stages(t1, t2, t1)))));
  check_same_output(in, out, before);
}

TEST_CASE("storage_rewrite: a freed buffer is taken within 16x of the size, growing to the larger", "[lower][storage_rewrite]") {
  Buffer in = BufferNode::make("in", DType::Float32, {16});
  Buffer out = BufferNode::make("out", DType::Float32, {16});
  Var i("i"), j("j"), k("k"), m("m");
  // t1 (16) is dead when t3 starts; t2 holds the result meanwhile.
  auto program = [&](int64_t t3_size) {
    Buffer t1 = BufferNode::make("t1", DType::Float32, {16});
    Buffer t2 = BufferNode::make("t2", DType::Float32, {16});
    Buffer t3 = BufferNode::make("t3", DType::Float32, {t3_size});
    Stmt body = SeqNode::make({loop(i, 16, store(t1, i, load(in, i) * Expr(2.0f))),
                               loop(j, 16, store(t2, j, load(t1, Expr(15) - j))),
                               loop(k, t3_size, store(t3, k, cast(DType::Float32, k))),
                               loop(m, 16, store(out, m, load(t2, m) + load(t3, m * (t3_size / 16))))});
    return AllocateNode::make(t1, AllocateNode::make(t2, AllocateNode::make(t3, body)));
  };
  Stmt within = program(256), beyond = program(512);
  std::vector<Buffer> shared = allocations(lower::storage_rewrite(within));
  REQUIRE(shared.size() == 2);
  CHECK(shared[0]->name == "t1");
  CHECK(shared[0]->shape == std::vector<int64_t>{256});
  CHECK(allocations(lower::storage_rewrite(beyond)).size() == 3);
  check_same_output(in, out, within);
  check_same_output(in, out, beyond);
}

TEST_CASE("storage_rewrite: local, small and differently typed buffers keep their memory", "[lower][storage_rewrite]") {
  Buffer in = BufferNode::make("in", DType::Float32, {16});
  Buffer out = BufferNode::make("out", DType::Float32, {16});
  Var i("i"), j("j"), k("k"), m("m");
  // t1 is dead when t3 starts (not in place: t2 reads it reversed).
  auto program = [&](MemScope scope, int64_t size, DType t3_type) {
    Buffer t1 = BufferNode::make("t1", DType::Float32, {size}, scope);
    Buffer t2 = BufferNode::make("t2", DType::Float32, {16});
    Buffer t3 = BufferNode::make("t3", t3_type, {size}, scope);
    Stmt body = SeqNode::make({loop(i, size, store(t1, i, load(in, i) * Expr(2.0f))),
                               loop(j, 16, store(t2, j, load(t1, Expr(size - 1) - floormod(j, size)))),
                               loop(k, size, store(t3, k, cast(t3_type, k))),
                               loop(m, 16, store(out, m, load(t2, m) + cast(DType::Float32, load(t3, floormod(m, size)))))});
    return AllocateNode::make(t1, AllocateNode::make(t2, AllocateNode::make(t3, body)));
  };
  CHECK(allocations(lower::storage_rewrite(program(MemScope::Global, 16, DType::Float32))).size() == 2);
  CHECK(allocations(lower::storage_rewrite(program(MemScope::Local, 16, DType::Float32))).size() == 3);
  CHECK(allocations(lower::storage_rewrite(program(MemScope::Global, 1, DType::Float32))).size() == 3);
  CHECK(allocations(lower::storage_rewrite(program(MemScope::Global, 16, DType::Int32))).size() == 3);
  check_same_output(in, out, program(MemScope::Local, 16, DType::Float32));
}

TEST_CASE("storage_rewrite: no in-place write over a buffer the statement reduces into or reads elsewhere", "[lower][storage_rewrite]") {
  Buffer in = BufferNode::make("in", DType::Float32, {16});
  Buffer out = BufferNode::make("out", DType::Float32, {16});
  Buffer t1 = BufferNode::make("t1", DType::Float32, {16});
  Buffer t2 = BufferNode::make("t2", DType::Float32, {16});
  Var i("i"), j("j"), r("r"), m("m");
  Stmt fill = loop(i, 16, store(t1, i, load(in, i)));
  Stmt drain = loop(m, 16, store(out, m, load(t2, m)));
  // t2[j] = sum over r of t1[j]: t2 is read while written.
  Stmt reduce = loop(j, 16, SeqNode::make({store(t2, j, Expr(0.0f)),
                                           loop(r, 4, store(t2, j, load(t2, j) + load(t1, j)))}));
  // t2[j] = t1[j] + t1[15 - j]: in place would overwrite t1[15 - j] before it is read.
  Stmt mirror = loop(j, 16, store(t2, j, load(t1, j) + load(t1, Expr(15) - j)));
  for (const Stmt& middle : {reduce, mirror}) {
    Stmt before = AllocateNode::make(t1, AllocateNode::make(t2, SeqNode::make({fill, middle, drain})));
    CHECK(allocations(lower::storage_rewrite(before)).size() == 2);
    check_same_output(in, out, before);
  }
}

TEST_CASE("storage_rewrite: allocations of a parallel task share only with those of the same task", "[lower][storage_rewrite]") {
  Buffer in = BufferNode::make("in", DType::Float32, {64});
  Buffer out = BufferNode::make("out", DType::Float32, {64});
  Buffer a = BufferNode::make("a", DType::Float32, {16});
  Buffer b = BufferNode::make("b", DType::Float32, {16});
  Buffer c = BufferNode::make("c", DType::Float32, {64});
  Var p("p"), i("i"), j("j"), k("k"), m("m");
  // In each task: a then b in place over it. Outside, c after the tasks.
  Stmt steps = SeqNode::make({loop(i, 16, store(a, i, load(in, p * 16 + i) + Expr(1.0f))),
                              loop(j, 16, store(b, j, load(a, j) * Expr(2.0f))),
                              loop(k, 16, store(out, p * 16 + k, load(b, k)))});
  Stmt task = loop(p, 4, AllocateNode::make(a, AllocateNode::make(b, steps)), ForKind::Parallel);
  Stmt tail = AllocateNode::make(c, SeqNode::make({loop(m, 64, store(c, m, load(out, m) + Expr(1.0f))),
                                                   loop(k, 64, store(out, k, load(c, Expr(63) - k)))}));
  Stmt before = SeqNode::make({task, tail});
  Stmt after = lower::storage_rewrite(before);
  std::vector<Buffer> left = allocations(after);
  REQUIRE(left.size() == 2);
  CHECK(left[0] == c);  // at the function body
  CHECK(left[1] == a);  // at the top of the task
  check_same_output(in, out, before);
}

TEST_CASE("storage_rewrite: stages of a DAG share memory as in TVM's lowering, with the interpreter's results", "[lower][storage_rewrite]") {
  // TVM v0.14 lowers this default schedule to two allocations, B and C, with R written in
  // place over C (R reads C at its own index and B at another).
  Tensor A = placeholder({16, 32}, "A");
  Tensor B = compute({16, 32}, [&](Var i, Var j) { return A(i, j) * Expr(2.0f); }, "B");
  Tensor C = compute({16, 32}, [&](Var i, Var j) { return B(i, j) + Expr(1.0f); }, "C");
  Tensor R = compute({16, 32}, [&](Var i, Var j) { return B(i, Expr(31) - j) + C(i, j); }, "R");
  Tensor E = compute({16, 32}, [&](Var i, Var j) { return R(i, j) * R(i, j); }, "E");
  dag::ComputeDAG dag({A, E});
  PrimFunc f = lower::testing::check_lowering(dag, {});
  std::vector<Buffer> left = allocations(lower::finish_lowering(f, lower::Backend::LLVM).body);
  REQUIRE(left.size() == 2);
  CHECK(left[0]->name == "B");
  CHECK(left[1]->name == "C");
}

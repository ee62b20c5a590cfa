// The LLVM backend end to end on hand-built PrimFuncs: its tail of passes (vectorize_loop,
// expand_unrolled, simplify), emit_llvm, the in-process LlvmCompiler and the loaded kernel,
// each result compared with the PrimFunc evaluator on the same function before the tail.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>

#include "common/codegen/llvm_codegen.h"
#include "common/interp/primfunc_eval.h"
#include "common/lower/lower.h"
#include "common/measure/kernel.h"
#include "common/measure/llvm_compiler.h"
#include "common/measure/workspace_pool.h"
#include "common/util/error.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/codegen/primfunc_builders.h"

using namespace mrd;
using namespace mrd::ir;
using mrd::test::Aligned;
using mrd::test::load;
using mrd::test::matmul;
using mrd::test::store;

namespace {

const codegen::Target kTarget = codegen::parse_target("llvm -keys=cpu -mcpu=znver3");

std::string scratch(const std::string& name) {
  static const mrd::testing::TempDir dir("mrd-llvm-test");
  return dir.file(name);
}

/// Compiles f for `target`; the artifact's path goes to *artifact_out when given.
measure::Kernel build(const PrimFunc& f, std::string* text_out = nullptr,
                      const codegen::Target& target = kTarget,
                      std::string* artifact_out = nullptr) {
  static int counter = 0;
  std::string text = codegen::emit_llvm(lower::finish_lowering(f, lower::Backend::LLVM), target);
  if (text_out) *text_out = text;
  std::string stem = scratch("k" + std::to_string(counter++));
  std::ofstream(stem + ".ll") << text;
  measure::LlvmCompiler compiler(target);
  std::string artifact = stem + compiler.artifact_suffix();
  measure::CompileOutcome out = compiler.compile({stem + ".ll", artifact, {}, 60});
  INFO(out.message);
  REQUIRE(out.status == measure::CompileOutcome::Status::Ok);
  if (artifact_out) *artifact_out = artifact;
  return measure::Kernel::load(artifact);
}

/// Runs f compiled (its parallel loops on `threads` OpenMP threads) and through the evaluator
/// on the same float inputs; every element of every buffer must agree.
void check_against_evaluator(const PrimFunc& f, std::string* text = nullptr, int threads = 2,
                             const codegen::Target& target = kTarget,
                             std::string* artifact = nullptr) {
  measure::configure_openmp(threads);
  measure::Kernel k = build(f, text, target, artifact);
  std::vector<std::unique_ptr<Aligned<float>>> bufs;
  std::vector<std::vector<double>> want;
  std::vector<void*> args;
  for (size_t b = 0; b < f.params.size(); ++b) {
    int64_t n = f.params[b]->num_elements();
    bufs.push_back(std::make_unique<Aligned<float>>(n));
    want.emplace_back(n);
    for (int64_t i = 0; i < n; ++i) {
      float v = float((i * 7919 + b * 31) % 13) - 6.0f;
      bufs.back()->p[i] = v;
      want.back()[i] = v;
    }
    args.push_back(bufs.back()->p);
  }
  std::vector<std::vector<double>*> ptrs;
  for (auto& w : want) ptrs.push_back(&w);
  interp::eval_primfunc(f, ptrs);
  REQUIRE(k(args.data()) == 0);
  for (size_t b = 0; b < f.params.size(); ++b) {
    for (size_t i = 0; i < want[b].size(); ++i) {
      INFO("buffer " << b << " element " << i);
      REQUIRE(bufs[b]->p[i] == Approx(want[b][i]).margin(1e-3));
    }
  }
}

}  // namespace

TEST_CASE("llvm backend: parallel, vectorized and unrolled loops compute a matmul") {
  std::string text;
  check_against_evaluator(matmul(24, ForKind::Parallel, ForKind::Vectorized, ForKind::Unrolled), &text);
  // j became 24-lane vectors, k was expanded, i runs on the OpenMP team, a*b+c is fmuladd.
  CHECK(text.find("<24 x float>") != std::string::npos);
  CHECK(text.find("GOMP_parallel") != std::string::npos);
  CHECK(text.find("llvm.fmuladd.v24f32") != std::string::npos);
  CHECK(text.find("noalias align 64") != std::string::npos);
  check_against_evaluator(matmul(7, ForKind::Serial, ForKind::Serial, ForKind::Serial));
  check_against_evaluator(matmul(16, ForKind::Parallel, ForKind::Serial, ForKind::Vectorized));
}

TEST_CASE("llvm backend: a parallel loop on one thread is a plain call of its closure, as TVM's launch with one worker") {
  std::string text;
  // 7 rows on a team of two: chunks of 4 and 3; on one thread the closure runs all 7.
  check_against_evaluator(matmul(7, ForKind::Parallel, ForKind::Serial, ForKind::Serial), &text, 1);
  CHECK(text.find("omp_get_max_threads") != std::string::npos);
  CHECK(text.find("parallel_alone:") != std::string::npos);
  CHECK(text.find("GOMP_parallel") != std::string::npos);
  check_against_evaluator(matmul(7, ForKind::Parallel, ForKind::Serial, ForKind::Serial), nullptr, 2);
  measure::configure_openmp(2);
}

TEST_CASE("llvm backend: a lane-dependent guard scalarizes only its statement") {
  // out[j] = j < 10 ? in[j] * 2 : -1 for j in vectorized(0, 16), as a guarded store.
  auto in = BufferNode::make("in", DType::Float32, {16});
  auto out = BufferNode::make("out", DType::Float32, {16});
  auto out2 = BufferNode::make("out2", DType::Float32, {16});
  Var j("j");
  Stmt guarded = IfThenElseNode::make(likely(j < 10), store(out, j, load(in, j) * Expr(2.0f)));
  Stmt plain = store(out2, j, load(in, j) + Expr(1.0f));
  PrimFunc f{{in, out, out2}, ForNode::make(j, 0, 16, ForKind::Vectorized, SeqNode::make({guarded, plain}))};
  Stmt v = lower::finish_lowering(f, lower::Backend::LLVM).body;
  REQUIRE(v->kind == StmtKind::Seq);
  CHECK(v.as<SeqNode>()->stmts[0]->kind == StmtKind::For);    // the scalarized guard
  CHECK(v.as<SeqNode>()->stmts[1]->kind == StmtKind::Store);  // the vector store
  check_against_evaluator(f);
}

TEST_CASE("llvm backend: fused indices through floordiv and floormod stay contiguous ramps") {
  // out[f] = in[floordiv(f, 16) * 16 + floormod(f, 16)] over f = 4*16 + lane, 16 lanes.
  auto in = BufferNode::make("in", DType::Float32, {64});
  auto out = BufferNode::make("out", DType::Float32, {64});
  Var o("o"), l("l");
  Expr fused = o * 16 + l;
  Stmt s = store(out, fused, load(in, floordiv(fused, 16) * 16 + floormod(fused, 16)) + Expr(3.0f));
  PrimFunc f{{in, out}, ForNode::make(o, 0, 4, ForKind::Serial, ForNode::make(l, 0, 16, ForKind::Vectorized, s))};
  std::string text;
  check_against_evaluator(f, &text);
  CHECK(text.find("load <16 x float>") != std::string::npos);
  CHECK(text.find("extractelement") == std::string::npos);
}

TEST_CASE("llvm backend: strided vector reads gather lane by lane, selects and math calls") {
  auto in = BufferNode::make("in", DType::Float32, {64});
  auto out = BufferNode::make("out", DType::Float32, {16});
  Var j("j");
  Expr x = load(in, j * 3);
  Expr v = select(x > Expr(0.0f), exp(x * Expr(0.1f)), max(x, Expr(-2.0f))) + sqrt(fabs(x)) + tanh(x) + sigmoid(x);
  PrimFunc f{{in, out}, ForNode::make(j, 0, 16, ForKind::Vectorized, store(out, j, v))};
  check_against_evaluator(f);
}

TEST_CASE("llvm backend: floor, ceil, trunc and round are vector intrinsics, erf and rsqrt run lane by lane, as TVM") {
  // Halves and negatives: x = in[j] / 2 - 0.25 covers every rounding direction.
  auto in = BufferNode::make("in", DType::Float32, {16});
  auto out = BufferNode::make("out", DType::Float32, {16});
  auto out2 = BufferNode::make("out2", DType::Float32, {16});
  Var j("j");
  Expr x = load(in, j) * Expr(0.5f) - Expr(0.25f);
  Expr h = load(in, j) * Expr(0.5f);
  Stmt rounding = store(out, j, floor(x) + ceil(x) * Expr(10.0f) + trunc(x) * Expr(100.0f) + round(h) * Expr(1000.0f));
  Stmt special = store(out2, j, erf(x) + rsqrt(fabs(x) + Expr(1.0f)));
  std::string text;
  check_against_evaluator(PrimFunc{{in, out, out2}, ForNode::make(j, 0, 16, ForKind::Vectorized, SeqNode::make({rounding, special}))}, &text);
  for (const char* f : {"@llvm.floor.v16f32", "@llvm.ceil.v16f32", "@llvm.trunc.v16f32", "@llvm.round.v16f32"}) {
    CHECK(text.find(f) != std::string::npos);
  }
  CHECK(text.find("call float @erff(float") != std::string::npos);
  CHECK(text.find("@llvm.sqrt.f32(float") != std::string::npos);
  CHECK(text.find("x float> @erff") == std::string::npos);
}

TEST_CASE("llvm backend: truncmod, bitwise calls and shifts are vector integer instructions, as TVM") {
  // Inputs from -6 to 6: negative dividends and shifted values, shift amounts 0..6.
  auto in = BufferNode::make("in", DType::Float32, {16});
  std::vector<Buffer> outs;
  for (const char* n : {"o_i32", "o_u32", "o_i16", "o_f32"}) outs.push_back(BufferNode::make(n, DType::Float32, {16}));
  Var j("j");
  Expr x = load(in, j);
  Expr a = cast(DType::Int32, x), s = cast(DType::Int32, fabs(x));
  Expr i32 = truncmod(a * 7 + 1, 4) + bitwise_and(a, 5) + bitwise_or(a, 2) * 3 + bitwise_xor(a, 9) +
             bitwise_not(a) * 5 + shift_left(a, s) + shift_right(a * 100, s);
  auto u32 = [](int64_t v) { return IntImmNode::make(DType::UInt32, v); };
  Expr u = cast(DType::UInt32, s + 1) * u32(int64_t{1} << 29);  // up to 7 * 2^29: no wrap
  Expr unsigned_ops = shift_right(u, u32(4)) + truncmod(u, u32(1000)) + max(u, u32(int64_t{3} << 30));
  auto i16 = [](int64_t v) { return IntImmNode::make(DType::Int16, v); };
  Expr h = cast(DType::Int16, a) * i16(9000);  // wraps at 16 bits
  Expr narrow = shift_right(h, i16(3)) + truncmod(h, i16(7));
  Stmt body = SeqNode::make({store(outs[0], j, cast(DType::Float32, i32)),
                             store(outs[1], j, cast(DType::Float32, unsigned_ops)),
                             store(outs[2], j, cast(DType::Float32, narrow)),
                             store(outs[3], j, truncmod(x * Expr(1.3f), Expr(2.5f)))});
  std::vector<Buffer> params{in};
  params.insert(params.end(), outs.begin(), outs.end());
  std::string text;
  check_against_evaluator(PrimFunc{params, ForNode::make(j, 0, 16, ForKind::Vectorized, body)}, &text);
  for (const char* i : {"srem <16 x i32>", "and <16 x i32>", "or <16 x i32>", "xor <16 x i32>", "shl <16 x i32>",
                        "ashr <16 x i32>", "lshr <16 x i32>", "urem <16 x i32>", "mul nuw <16 x i32>",
                        "ashr <16 x i16>", "srem <16 x i16>", "frem <16 x float>", "uitofp <16 x i32>"}) {
    INFO(i);
    CHECK(text.find(i) != std::string::npos);
  }
}

TEST_CASE("llvm backend: operands are emitted in TVM's order, the right one first for + - * < <= > >= and bitwise calls") {
  // TVM's CodeGenLLVM makes both operands of Add, Sub, Mul, the ordering comparisons and the
  // bitwise calls as arguments of one call, which its x86-64 build (GCC) evaluates right to
  // left, and those of Div, Min, Max, EQ and NE one statement after the other. The order of the
  // loads decides some of LLVM's loop-vectorization choices, so ours is TVM's.
  std::vector<Buffer> in;
  for (const char* n : {"a", "b", "c"}) in.push_back(BufferNode::make(n, DType::Float32, {8}));
  auto out = BufferNode::make("o", DType::Float32, {8});
  Var j("j");
  auto value = [&](int b) { return cast(DType::Int32, load(in[b], j)); };
  struct Case {
    const char* what;
    Expr e;
    std::vector<int> loads;  // the buffers read, in the order TVM's build reads them
  };
  std::vector<Case> cases = {
      {"a + b * c", value(0) + value(1) * value(2), {2, 1, 0}},
      {"a - b", value(0) - value(1), {1, 0}},
      {"a < b", cast(DType::Int32, value(0) < value(1)), {1, 0}},
      {"bitwise_xor(a, b)", bitwise_xor(value(0), value(1)), {1, 0}},
      {"min(a, b)", min(value(0), value(1)), {0, 1}},
      {"a == b", cast(DType::Int32, value(0) == value(1)), {0, 1}},
      {"select(a > b, c, a + 1), reading memory: a branch on the condition",
       select(value(0) > value(1), value(2), value(0) + 1), {1, 0, 2, 0}},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    std::string text;
    PrimFunc f{{in[0], in[1], in[2], out},
               ForNode::make(j, 0, 8, ForKind::Serial, store(out, j, cast(DType::Float32, c.e)))};
    check_against_evaluator(f, &text);
    // The buffers read, in the order of the text: the compute function's parameters %0, %1,
    // %2 are a, b and c (%3, the output, is only written).
    std::vector<int> read;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      for (int b = 0; b < 3; ++b) {
        if (line.find("getelementptr inbounds float, float* %" + std::to_string(b) + ",") != std::string::npos) read.push_back(b);
      }
    }
    CHECK(read == c.loads);
  }
}

TEST_CASE("llvm backend: a broadcast 8-bit factor of a multiply-add widens after the broadcast, as TVM's LowerIntrin") {
  // acc + int32(uint8 a[0]) * int32(int8 b[j]) over a vectorized j: the invariant factor is
  // broadcast as a byte and widened as a vector (zext <16 x i8>), the product first.
  auto a = BufferNode::make("a", DType::Float32, {16});
  auto b = BufferNode::make("b", DType::Float32, {16});
  auto c = BufferNode::make("c", DType::Float32, {16});
  auto o = BufferNode::make("o", DType::Float32, {16});
  Var j("j");
  Expr factor = cast(DType::Int32, cast(DType::UInt8, fabs(load(a, Expr(0)))));
  Expr sum = cast(DType::Int32, load(c, j)) + factor * cast(DType::Int32, cast(DType::Int8, load(b, j)));
  std::string text;
  check_against_evaluator(
      PrimFunc{{a, b, c, o}, ForNode::make(j, 0, 16, ForKind::Vectorized, store(o, j, cast(DType::Float32, sum)))}, &text);
  CHECK(text.find("zext <16 x i8>") != std::string::npos);
  CHECK(text.find("insertelement <16 x i32>") == std::string::npos);
}

TEST_CASE("llvm backend: a broadcast bool factor of a multiply-add widens after the broadcast, as TVM's LowerIntrin") {
  auto a = BufferNode::make("a", DType::Float32, {16});
  auto c = BufferNode::make("c", DType::Float32, {16});
  auto o = BufferNode::make("o", DType::Float32, {16});
  Var j("j");
  Expr positive = cast(DType::Int32, load(a, Expr(3)) > Expr(0.0f));
  Expr sum = cast(DType::Int32, load(c, j)) + positive * cast(DType::Int32, load(a, j));
  std::string text;
  check_against_evaluator(
      PrimFunc{{a, c, o}, ForNode::make(j, 0, 16, ForKind::Vectorized, store(o, j, cast(DType::Float32, sum)))}, &text);
  CHECK(text.find("zext <16 x i1>") != std::string::npos);
}

TEST_CASE("llvm backend: sin, cos, exp2, log2 and log10 are vector intrinsics, isnan runs lane by lane, as TVM") {
  // Inputs from -6 to 6: the log of the negative ones is NaN, which isnan tells apart.
  auto in = BufferNode::make("in", DType::Float32, {16});
  auto out = BufferNode::make("out", DType::Float32, {16});
  auto out2 = BufferNode::make("out2", DType::Float32, {16});
  Var j("j");
  Expr x = load(in, j);
  Expr positive = fabs(x) + Expr(1.0f);
  Stmt math = store(out, j, sin(x) + cos(x) * Expr(10.0f) + exp2(x * Expr(0.5f)) + log2(positive) + log10(positive) * Expr(100.0f));
  Stmt nan = store(out2, j, select(isnan(log(x)), Expr(1.0f), Expr(0.0f)) + select(isnan(x), Expr(10.0f), Expr(0.0f)));
  std::string text;
  check_against_evaluator(PrimFunc{{in, out, out2}, ForNode::make(j, 0, 16, ForKind::Vectorized, SeqNode::make({math, nan}))}, &text);
  for (const char* f : {"@llvm.sin.v16f32", "@llvm.cos.v16f32", "@llvm.exp2.v16f32", "@llvm.log2.v16f32", "@llvm.log10.v16f32"}) {
    CHECK(text.find(f) != std::string::npos);
  }
  CHECK(text.find("fcmp uno float") != std::string::npos);
  CHECK(text.find("fcmp uno <16 x float>") == std::string::npos);
}

TEST_CASE("llvm backend: strided vector reads and writes index each lane with scalar arithmetic") {
  // out[i*16 + 2*j] = in[i + 2*j] * 3 for j in vectorized(0, 4): both ramps have stride 2 and a
  // base that is not a constant. As TVM's Scalarize, each lane's index is base + 2 * lane,
  // not a lane extracted from a vector of indices.
  auto in = BufferNode::make("in", DType::Float32, {16});
  auto out = BufferNode::make("out", DType::Float32, {32});
  Var i("i"), j("j");
  Stmt s = store(out, i * 16 + j * 2, load(in, i + j * 2) * Expr(3.0f));
  PrimFunc f{{in, out}, ForNode::make(i, 0, 2, ForKind::Serial, ForNode::make(j, 0, 4, ForKind::Vectorized, s))};
  std::string text;
  check_against_evaluator(f, &text);
  CHECK(text.find("extractelement <4 x i32>") == std::string::npos);
  CHECK(text.find("add nsw i32 %") != std::string::npos);
}

TEST_CASE("llvm backend: integer floordiv and floormod round toward minus infinity") {
  auto out = BufferNode::make("out", DType::Float32, {4 * 11});
  Var i("i");
  Expr x = i - 5;
  Stmt body = SeqNode::make({store(out, i, cast(DType::Float32, floordiv(x, 3))),
                             store(out, i + 11, cast(DType::Float32, floormod(x, 3))),
                             store(out, i + 22, cast(DType::Float32, floordiv(x, 4))),
                             store(out, i + 33, cast(DType::Float32, floormod(x, 4)))});
  check_against_evaluator(PrimFunc{{out}, ForNode::make(i, 0, 11, ForKind::Serial, body)});
}

TEST_CASE("llvm backend: allocations of every scope and size compute, inside a parallel loop") {
  for (MemScope scope : {MemScope::Global, MemScope::Local}) {
    for (int64_t n : {int64_t{64}, int64_t{(1 << 20) / 4 + 16}}) {
      auto in = BufferNode::make("in", DType::Float32, {4});
      auto out = BufferNode::make("out", DType::Float32, {4});
      auto tmp = BufferNode::make("tmp", DType::Float32, {n}, scope);
      Var p("p");
      Stmt body = AllocateNode::make(tmp, SeqNode::make({store(tmp, Expr(int(n - 1)), load(in, p) * Expr(3.0f)),
                                                         store(out, p, load(tmp, Expr(int(n - 1))) + Expr(1.0f))}));
      INFO("allocation of " << n << " floats, scope " << (scope == MemScope::Local ? "local" : "global"));
      check_against_evaluator(PrimFunc{{in, out}, ForNode::make(p, 0, 4, ForKind::Parallel, body)});
    }
  }
}

TEST_CASE("llvm backend: only global allocations under 1 KiB are stack slots, as in TVM") {
  // TVM's LowerTVMBuiltin: the rest come from the workspace through a pointer LLVM cannot
  // see through, so that a local accumulator stays memory (and vectorizes) as in TVM's build.
  struct Case {
    MemScope scope;
    int64_t floats;
    bool stack;
  };
  for (Case c : {Case{MemScope::Global, 255, true}, Case{MemScope::Global, 256, false},
                 Case{MemScope::Local, 4, false}, Case{MemScope::Local, 1024, false}}) {
    auto in = BufferNode::make("in", DType::Float32, {4});
    auto out = BufferNode::make("out", DType::Float32, {4});
    auto tmp = BufferNode::make("tmp", DType::Float32, {c.floats}, c.scope);
    Var i("i");
    Stmt body = AllocateNode::make(
        tmp, ForNode::make(i, 0, 4, ForKind::Serial,
                           SeqNode::make({store(tmp, i, load(in, i) * Expr(2.0f)), store(out, i, load(tmp, i))})));
    PrimFunc f{{in, out}, body};
    std::string text;
    check_against_evaluator(f, &text);
    INFO(c.floats << " floats, " << (c.scope == MemScope::Local ? "local" : "global") << ":\n" << text);
    bool alloca = text.find("alloca float, i64 " + std::to_string(c.floats)) != std::string::npos;
    bool workspace = text.find("load i8* (i64, i64)*, i8* (i64, i64)** @mrd_workspace_alloc") != std::string::npos;
    CHECK(alloca == c.stack);
    CHECK(workspace == !c.stack);
    if (workspace) CHECK(text.find("@mrd_workspace_free") != std::string::npos);
  }
}

TEST_CASE("llvm backend: every loop test is weighted 2^20 : 1 for staying in the loop, as TVM's") {
  // TVM's CreateSerialFor marks each loop's branch very likely; the register allocator places
  // spills by the block frequencies that follow (a TVM-sampled conv2d state spilled its
  // accumulators in the inner loop without them).
  PrimFunc f = matmul(8, ForKind::Parallel, ForKind::Serial, ForKind::Serial);
  std::string text = codegen::emit_llvm(lower::finish_lowering(f, lower::Backend::LLVM), kTarget);
  INFO(text);
  size_t md = text.find(" = !{!\"branch_weights\", i32 1048576, i32 1}");
  REQUIRE(md != std::string::npos);
  std::string id = text.substr(text.rfind('!', md), md - text.rfind('!', md));
  int loops = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("br i1") == std::string::npos || line.find("label %for_body") == std::string::npos) continue;
    ++loops;
    INFO(line);
    std::string tail = ", !prof " + id;
    CHECK((line.size() >= tail.size() && line.compare(line.size() - tail.size(), tail.size(), tail) == 0));
  }
  CHECK(loops >= 3);  // the three loops of the matmul, the parallel one's chunk loop among them
  check_against_evaluator(f);
}

TEST_CASE("llvm backend: the target chooses the CPU, bad targets are user errors") {
  PrimFunc f = matmul(8, ForKind::Serial, ForKind::Vectorized, ForKind::Serial);
  std::string text = codegen::emit_llvm(lower::finish_lowering(f, lower::Backend::LLVM), kTarget);
  CHECK(text.find("\"target-cpu\"=\"znver3\"") != std::string::npos);
  CHECK(codegen::parse_target("c").kind == codegen::TargetKind::C);
  CHECK(codegen::parse_target("").kind == codegen::TargetKind::LLVM);
  CHECK(codegen::parse_target("llvm -mattr=+avx2,+fma").mattr == "+avx2,+fma");
  CHECK_THROWS_AS(codegen::parse_target("cuda"), UserError);
  CHECK_THROWS_AS(codegen::parse_target("llvm -mcpu=\"; rm\""), UserError);
  CHECK_THROWS_AS(codegen::parse_target("llvm -frobnicate=1"), UserError);
}

TEST_CASE(
    "llvm backend: -opt-level and the -fast-math attributes are read as TVM v0.14 reads them") {
  using codegen::parse_target;
  CHECK(parse_target("llvm").opt_level == 3);
  CHECK(parse_target("llvm -opt-level=2").opt_level == 2);
  CHECK(parse_target("llvm -opt-level").opt_level ==
        1);  // TVM: an integer attribute without a value is 1
  CHECK(parse_target("llvm -opt-level=-1").opt_level == -1);
  CHECK(parse_target("llvm -opt-level=5").opt_level == 5);
  CHECK(parse_target("llvm").fast_math == codegen::FastMathFlags{});
  CHECK(parse_target("llvm -fast-math").fast_math.fast);
  CHECK(parse_target("llvm -fast-math=True").fast_math.fast);
  CHECK(parse_target("llvm -fast-math=2").fast_math.fast);
  CHECK_FALSE(parse_target("llvm -fast-math=0").fast_math.fast);
  CHECK_FALSE(parse_target("llvm -fast-math=false").fast_math.fast);
  codegen::FastMathFlags some =
      parse_target("llvm -mcpu=znver3 -fast-math-nnan -fast-math-contract=1").fast_math;
  CHECK(some.nnan);
  CHECK(some.contract);
  CHECK_FALSE(some.fast);
  CHECK_FALSE(some.reassoc);
  CHECK(parse_target("llvm -fast-math-ninf -fast-math-nsz -fast-math-arcp -fast-math-reassoc")
            .fast_math == codegen::FastMathFlags{false, false, true, true, true, false, true});
  CHECK_THROWS_AS(parse_target("llvm -fast-math=yes"), UserError);
  CHECK_THROWS_AS(parse_target("llvm -opt-level=3x"), UserError);
  CHECK_THROWS_AS(parse_target("llvm -opt-level=99999999999"), UserError);
  CHECK_THROWS_AS(parse_target("llvm -fast-math-afn"),
                  UserError);  // not an attribute of TVM v0.14's llvm
  CHECK_THROWS_WITH(parse_target("c -opt-level=2"),
                    Catch::Contains("belongs to llvm targets"));  // TVM's c has none
  CHECK_THROWS_WITH(parse_target("c -fast-math"), Catch::Contains("belongs to llvm targets"));
  // LLVM options are refused, never silently dropped.
  CHECK_THROWS_WITH(parse_target("llvm -cl-opt=-unroll-threshold:int=100"),
                    Catch::Contains("-cl-opt"));
}

TEST_CASE(
    "llvm backend: -fast-math flags reach every floating-point instruction, as TVM's IRBuilder "
    "flags") {
  PrimFunc f = matmul(8, ForKind::Serial, ForKind::Vectorized, ForKind::Serial);
  auto emit = [&](const char* target) {
    return codegen::emit_llvm(lower::finish_lowering(f, lower::Backend::LLVM),
                              codegen::parse_target(target));
  };
  std::string plain = emit("llvm -mcpu=znver3");
  CHECK(plain.find("call <8 x float> @llvm.fmuladd") != std::string::npos);
  CHECK(plain.find(" fast ") == std::string::npos);
  CHECK(plain.find("nnan") == std::string::npos);
  CHECK(emit("llvm -mcpu=znver3 -fast-math").find("call fast <8 x float> @llvm.fmuladd") !=
        std::string::npos);
  CHECK(emit("llvm -mcpu=znver3 -fast-math-nnan -fast-math-contract")
            .find("call nnan contract <8 x float> @llvm.fmuladd") != std::string::npos);
  CHECK(emit("llvm -mcpu=znver3 -fast-math=0") == plain);
}

TEST_CASE(
    "llvm backend: -opt-level chooses LLVM's pipeline and code generation level, and -fast-math "
    "still computes") {
  PrimFunc f = matmul(16, ForKind::Parallel, ForKind::Vectorized, ForKind::Unrolled);
  std::string o3, o0, o2;
  check_against_evaluator(f, nullptr, 2, kTarget, &o3);
  check_against_evaluator(f, nullptr, 2,
                          codegen::parse_target("llvm -keys=cpu -mcpu=znver3 -opt-level=0"), &o0);
  check_against_evaluator(f, nullptr, 2,
                          codegen::parse_target("llvm -keys=cpu -mcpu=znver3 -opt-level=2"), &o2);
  check_against_evaluator(f, nullptr, 2,
                          codegen::parse_target("llvm -keys=cpu -mcpu=znver3 -fast-math"));
  auto bytes = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  // The same module text, so only the level can make the objects differ.
  CHECK(bytes(o2) != bytes(o0));
  CHECK(bytes(o0) != bytes(o3));
  // The level is part of the compile cache's key.
  CHECK(measure::LlvmCompiler(kTarget).identity() !=
        measure::LlvmCompiler(codegen::parse_target("llvm -keys=cpu -mcpu=znver3 -opt-level=2"))
            .identity());
  CHECK(measure::LlvmCompiler(kTarget).identity() ==
        measure::LlvmCompiler(codegen::parse_target("llvm -keys=cpu -mcpu=znver3 -opt-level=7"))
            .identity());
}

TEST_CASE("llvm backend: a loaded kernel takes its workspace from the pool and gives it back") {
  auto in = BufferNode::make("in", DType::Float32, {4});
  auto out = BufferNode::make("out", DType::Float32, {4});
  auto big = BufferNode::make("big", DType::Float32, {1 << 18});  // 1 MiB: workspace
  Var i("i");
  Stmt body = AllocateNode::make(
      big, ForNode::make(i, 0, 4, ForKind::Serial,
                         SeqNode::make({store(big, i, load(in, i) * Expr(2.0f)), store(out, i, load(big, i))})));
  measure::release_workspace_pool();
  {
    measure::Kernel k = build(PrimFunc{{in, out}, body});
    Aligned<float> a(4), b(4);
    for (int j = 0; j < 4; ++j) a.p[j] = float(j);
    void* args[] = {a.p, b.p};
    for (int call = 0; call < 3; ++call) REQUIRE(k(args) == 0);
    for (int j = 0; j < 4; ++j) CHECK(b.p[j] == 2.0f * float(j));
    // Three calls, one block: given back after each call and handed out again.
    measure::WorkspacePoolStats s = measure::workspace_pool_stats();
    CHECK(s.kept_blocks == 1);
    CHECK(s.kept_bytes == size_t{1} << 20);
    CHECK(s.blocks_in_use == 0);
  }
  CHECK(measure::workspace_pool_stats().kept_blocks == 0);  // the last kernel went
}

TEST_CASE(
    "llvm backend: the parallel tasks of a kernel each take a workspace from their thread's pool") {
  // for p in parallel(0, 8): big = allocate 16 KiB (a workspace); big[i] = in[p, i] * 3; out[p, i]
  // = big[i] + 1
  auto in = BufferNode::make("in", DType::Float32, {8 * 16});
  auto out = BufferNode::make("out", DType::Float32, {8 * 16});
  auto big = BufferNode::make("big", DType::Float32, {1 << 12});
  Var p("p"), i("i");
  Expr at = p * Expr(16) + i;
  Stmt task = AllocateNode::make(
      big,
      SeqNode::make(
          {ForNode::make(i, 0, 16, ForKind::Serial, store(big, i, load(in, at) * Expr(3.0f))),
           ForNode::make(i, 0, 16, ForKind::Serial, store(out, at, load(big, i) + Expr(1.0f)))}));
  PrimFunc f{{in, out}, ForNode::make(p, 0, 8, ForKind::Parallel, task)};
  check_against_evaluator(f, nullptr, 2);
  measure::release_workspace_pool();
  {
    measure::configure_openmp(2);
    measure::Kernel k = build(f);
    Aligned<float> a(8 * 16), b(8 * 16);
    for (int j = 0; j < 8 * 16; ++j) a.p[j] = float(j);
    void* args[] = {a.p, b.p};
    for (int call = 0; call < 3; ++call) REQUIRE(k(args) == 0);
    for (int j = 0; j < 8 * 16; ++j) CHECK(b.p[j] == 3.0f * float(j) + 1.0f);
    // Every task gave its block back, and each thread keeps at most one: a block per thread
    // that ran tasks, handed out again to its next task.
    measure::WorkspacePoolStats s = measure::workspace_pool_stats();
    CHECK(s.blocks_in_use == 0);
    CHECK(s.kept_blocks >= 1);
    CHECK(s.kept_blocks <= 2);
    CHECK(s.kept_bytes == s.kept_blocks * (size_t{1} << 14));
  }
  CHECK(measure::workspace_pool_stats().kept_blocks == 0);  // the kernel went, its blocks too
}

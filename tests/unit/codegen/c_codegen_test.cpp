// Hand-built PrimFuncs through emit_c, compiled by the system compiler and run.
#include <catch2/catch.hpp>
#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <vector>

#include "common/codegen/c_codegen.h"
#include "common/lower/expand_unrolled.h"
#include "common/lower/lower.h"
#include "common/ir/expr.h"
#include "common/interp/primfunc_eval.h"
#include "common/ir/stmt.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/codegen/primfunc_builders.h"

using namespace mrd;
using namespace mrd::ir;
using mrd::test::Aligned;
using mrd::test::load;
using mrd::test::matmul;
using mrd::test::store;

namespace {

/// The C backend's tail of passes, then its printer, as the pipeline runs them.
std::string emit_c_backend(const PrimFunc& f) {
  return codegen::emit_c(lower::finish_lowering(f, lower::Backend::C));
}

using Entry = int32_t (*)(void* const*);

// Compiles `src` to a shared object in a per-process scratch directory and loads it.
struct Kernel {
  void* handle = nullptr;
  Entry entry = nullptr;
  ~Kernel() {
    if (handle) dlclose(handle);
  }
};

std::unique_ptr<Kernel> build(const std::string& src) {
  static int counter = 0;
  static const mrd::testing::TempDir dir("mrd-codegen-test");
  std::string stem = dir.file("k" + std::to_string(counter++));
  std::ofstream(stem + ".c") << src;
  std::string cmd = "cc -O2 -march=native -fPIC -shared -fopenmp -o " + stem + ".so " + stem +
                    ".c -lm 2>" + stem + ".err";
  INFO(src);
  REQUIRE(std::system(cmd.c_str()) == 0);
  // Keep the OpenMP runtime loaded for good: unloading it with a kernel while its thread pool
  // is parked would crash.
  static void* gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
  REQUIRE(gomp != nullptr);
  auto k = std::make_unique<Kernel>();
  k->handle = dlopen((stem + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE(k->handle != nullptr);
  k->entry = reinterpret_cast<Entry>(dlsym(k->handle, "mrd_entry"));
  REQUIRE(k->entry != nullptr);
  return k;
}

void check_matmul(const PrimFunc& f, int n) {
  auto k = build(emit_c_backend(f));
  Aligned<float> a(n * n), b(n * n), c(n * n);
  for (int i = 0; i < n * n; ++i) {
    a[i] = float((i * 7919) % 13) - 6.0f;
    b[i] = float((i * 31) % 7) - 3.0f;
  }
  void* args[] = {a.p, b.p, c.p};
  REQUIRE(k->entry(args) == 0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float want = 0;
      for (int x = 0; x < n; ++x) want += a[i * n + x] * b[x * n + j];
      REQUIRE(c[i * n + j] == want);
    }
}

}  // namespace

TEST_CASE("emit_c: parallel, vectorized and unrolled loops compute a matmul") {
  const int n = 24;
  PrimFunc f = matmul(n, ForKind::Parallel, ForKind::Vectorized, ForKind::Unrolled);
  std::string src = emit_c_backend(f);
  CHECK(src.find("#pragma omp parallel for schedule(static)") != std::string::npos);
  // j (24 lanes) becomes three 8-wide vector statements; k (unrolled) is expanded into 24
  // copies of them, which stay under kMaxUnrolledStoresC.
  CHECK(src.find("mrd_st_v8f(") != std::string::npos);
  CHECK(src.find("#pragma omp simd") == std::string::npos);
  CHECK(src.find("#pragma GCC unroll") == std::string::npos);
  PrimFunc few = matmul(8, ForKind::Parallel, ForKind::Vectorized, ForKind::Unrolled);
  CHECK(emit_c_backend(few).find("mrd_st_v8f(") != std::string::npos);
  check_matmul(few, 8);
  check_matmul(f, n);
  // 24 x 24 stores are too many to expand: the loop stays, for the compiler to unroll.
  PrimFunc g = matmul(n, ForKind::Parallel, ForKind::Serial, ForKind::Unrolled);
  CHECK(emit_c_backend(g).find("#pragma GCC unroll 24") != std::string::npos);
  check_matmul(g, n);
}

TEST_CASE("emit_c: floordiv and floormod round toward minus infinity") {
  auto out = BufferNode::make("out", DType::Int32, {4 * 11});
  auto out64 = BufferNode::make("out64", DType::Int64, {2 * 11});
  Var i("i");
  Expr x = i - 5;  // -5 .. 5
  Expr x64 = cast(DType::Int64, x);
  Stmt body = ForNode::make(i, 0, 11, ForKind::Serial, SeqNode::make({
      store(out, i, floordiv(x, 3)),
      store(out, i + 11, floormod(x, 3)),
      store(out, i + 22, floordiv(x, -3)),
      store(out, i + 33, floormod(x, -3)),
      store(out64, i, floordiv(x64, cast(DType::Int64, Expr(4)))),
      store(out64, i + 11, floormod(x64, cast(DType::Int64, Expr(4)))),
  }));
  auto k = build(emit_c_backend(PrimFunc{{out, out64}, body}));
  Aligned<int32_t> o(44);
  Aligned<int64_t> o64(22);
  void* args[] = {o.p, o64.p};
  REQUIRE(k->entry(args) == 0);
  auto fdiv = [](int64_t a, int64_t b) { int64_t q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; };
  for (int v = -5; v <= 5; ++v) {
    int idx = v + 5;
    CHECK(o[idx] == fdiv(v, 3));
    CHECK(o[idx + 11] == v - fdiv(v, 3) * 3);
    CHECK(o[idx + 22] == fdiv(v, -3));
    CHECK(o[idx + 33] == v - fdiv(v, -3) * -3);
    CHECK(o64[idx] == fdiv(v, 4));
    CHECK(o64[idx + 11] == v - fdiv(v, 4) * 4);
  }
  CHECK(o[0] == -2);        // floordiv(-5, 3)
  CHECK(o[11] == 1);        // floormod(-5, 3)
}

TEST_CASE("emit_c: select and if_then_else evaluate only the chosen branch") {
  // Integer division by zero traps; the kernel survives only if the other branch is skipped.
  auto in = BufferNode::make("in", DType::Int32, {5});
  auto out = BufferNode::make("out", DType::Int32, {10});
  Var i("i");
  Expr d = load(in, i);
  Stmt body = ForNode::make(i, 0, 5, ForKind::Serial, SeqNode::make({
      store(out, i, select(d != 0, Expr(100) / d, Expr(-1))),
      store(out, i + 5, if_then_else(d == 0, Expr(-2), Expr(60) / d)),
  }));
  auto k = build(emit_c_backend(PrimFunc{{in, out}, body}));
  Aligned<int32_t> a(5), o(10);
  int vals[] = {5, 0, -3, 0, 10};
  for (int x = 0; x < 5; ++x) a[x] = vals[x];
  void* args[] = {a.p, o.p};
  REQUIRE(k->entry(args) == 0);
  int want[] = {20, -1, -33, -1, 10, 12, -2, -20, -2, 6};
  for (int x = 0; x < 10; ++x) CHECK(o[x] == want[x]);
}

TEST_CASE("emit_c: local allocations on the stack and on the heap") {
  for (int64_t n : {int64_t(16), int64_t(40000)}) {  // 64 B on the stack, 160 KB on the heap
    auto in = BufferNode::make("in", DType::Float32, {n});
    auto out = BufferNode::make("out", DType::Float32, {1});
    auto tmp = BufferNode::make("tmp.local", DType::Float32, {n}, MemScope::Local);
    Var i("i"), j("j");
    Stmt fill = ForNode::make(i, 0, Expr(int(n)), ForKind::Serial,
                              store(tmp, i, load(in, i) * 2.0f + 1.0f));
    Stmt sum = SeqNode::make({store(out, 0, Expr(0.0f)),
                              ForNode::make(j, 0, Expr(int(n)), ForKind::Serial,
                                            store(out, 0, load(out, 0) + load(tmp, j)))});
    Stmt body = AllocateNode::make(tmp, SeqNode::make({fill, sum}));
    std::string src = emit_c_backend(PrimFunc{{in, out}, body});
    bool heap = n * 4 > codegen::kMaxStackAllocationBytes;
    CHECK((src.find("mrd_alloc(") != std::string::npos && src.find("free(b2)") != std::string::npos) == heap);
    auto k = build(src);
    Aligned<float> a(n), o(1);
    for (int64_t x = 0; x < n; ++x) a[x] = float(x % 3);
    void* args[] = {a.p, o.p};
    REQUIRE(k->entry(args) == 0);
    double want = 0;
    for (int64_t x = 0; x < n; ++x) want += a[x] * 2.0 + 1.0;
    CHECK(o[0] == Approx(want).epsilon(1e-6));
  }
}

TEST_CASE("emit_c: float literals are exact and math uses the float32 functions") {
  auto out = BufferNode::make("out", DType::Float32, {3});
  auto out64 = BufferNode::make("out64", DType::Float64, {1});
  float third = 1.0f / 3.0f;
  Stmt body = SeqNode::make({
      store(out, 0, Expr(third)),
      store(out, 1, exp(Expr(0.5f))),
      store(out, 2, reduce_identity(ReduceOp::Max, DType::Float32)),
      store(out64, 0, FloatImmNode::make(DType::Float64, 0.1)),
  });
  std::string src = emit_c_backend(PrimFunc{{out, out64}, body});
  CHECK(src.find("expf(") != std::string::npos);
  auto k = build(src);
  Aligned<float> o(3);
  Aligned<double> o64(1);
  void* args[] = {o.p, o64.p};
  REQUIRE(k->entry(args) == 0);
  CHECK(o[0] == third);
  CHECK(o[1] == std::exp(0.5f));
  CHECK(o[2] == -std::numeric_limits<float>::max());
  CHECK(o64[0] == 0.1);
}

TEST_CASE("emit_c: erf, floor, ceil, trunc, round and rsqrt use the C library's float32 functions") {
  auto in = BufferNode::make("in", DType::Float32, {1});
  auto out = BufferNode::make("out", DType::Float32, {6});
  Expr x = load(in, 0);
  Stmt body = SeqNode::make({store(out, 0, erf(x)), store(out, 1, floor(x)), store(out, 2, ceil(x)),
                             store(out, 3, trunc(x)), store(out, 4, round(x)), store(out, 5, rsqrt(fabs(x)))});
  std::string src = emit_c_backend(PrimFunc{{in, out}, body});
  for (const char* f : {"erff(", "floorf(", "ceilf(", "truncf(", "roundf(", "sqrtf("}) CHECK(src.find(f) != std::string::npos);
  auto k = build(src);
  Aligned<float> i(1), o(6);
  i[0] = -2.5f;
  void* args[] = {i.p, o.p};
  REQUIRE(k->entry(args) == 0);
  CHECK(o[0] == std::erf(-2.5f));
  CHECK(o[1] == -3.0f);
  CHECK(o[2] == -2.0f);
  CHECK(o[3] == -2.0f);
  CHECK(o[4] == -3.0f);  // halfway away from zero
  CHECK(o[5] == 1.0f / std::sqrt(2.5f));
}

TEST_CASE("emit_c: sin, cos, exp2, log2 and log10 use the C library's float32 functions, isnan is bool") {
  auto in = BufferNode::make("in", DType::Float32, {2});
  auto out = BufferNode::make("out", DType::Float32, {7});
  Expr x = load(in, 0);
  Expr nan = log(load(in, 1));  // the log of a negative number
  auto as_float = [](Expr b) { return select(b, Expr(1.0f), Expr(0.0f)); };
  Stmt body = SeqNode::make({store(out, 0, sin(x)), store(out, 1, cos(x)), store(out, 2, exp2(x)),
                             store(out, 3, log2(x)), store(out, 4, log10(x)),
                             store(out, 5, as_float(isnan(nan))), store(out, 6, as_float(isnan(x)))});
  std::string src = emit_c_backend(PrimFunc{{in, out}, body});
  for (const char* f : {"sinf(", "cosf(", "exp2f(", "log2f(", "log10f(", "isnan("}) CHECK(src.find(f) != std::string::npos);
  auto k = build(src);
  Aligned<float> i(2), o(7);
  i[0] = 2.5f;
  i[1] = -1.0f;
  void* args[] = {i.p, o.p};
  REQUIRE(k->entry(args) == 0);
  CHECK(o[0] == std::sin(2.5f));
  CHECK(o[1] == std::cos(2.5f));
  CHECK(o[2] == std::exp2(2.5f));
  CHECK(o[3] == std::log2(2.5f));
  CHECK(o[4] == std::log10(2.5f));
  CHECK(o[5] == 1.0f);
  CHECK(o[6] == 0.0f);
}

TEST_CASE("emit_c: names from the workload never become code") {
  auto a = BufferNode::make("x*/ int evil(); /*", DType::Float32, {1});
  Var i("i; system(\"rm -rf /\");");
  Stmt body = ForNode::make(i, 0, 1, ForKind::Serial, store(a, i, Expr(1.0f)));
  std::string src = emit_c_backend(PrimFunc{{a}, body});
  CHECK(src.find("evil()") == std::string::npos);  // only x___int_evil_____ in a comment
  CHECK(src.find("*/ int") == std::string::npos);
  CHECK(src.find("system") == std::string::npos);
  CHECK(src.find("rm -rf") == std::string::npos);
  CHECK(src.find("for (int32_t v0 = ") != std::string::npos);
}

TEST_CASE("emit_c: floordiv of a non-negative index by a positive constant is plain division") {
  auto out = BufferNode::make("out", DType::Int32, {12});
  Var i("i");
  Stmt body = ForNode::make(i, 0, 12, ForKind::Serial, store(out, i, floordiv(i, 4) * 10 + floormod(i, 4)));
  std::string src = emit_c_backend(PrimFunc{{out}, body});
  CHECK(src.find("(v0 / 4)") != std::string::npos);
  CHECK(src.find("(v0 % 4)") != std::string::npos);
  CHECK(src.find("mrd_floordiv_i32(v0") == std::string::npos);
  Var j("j");  // a loop starting below zero keeps the floor helpers
  Stmt neg = ForNode::make(j, -6, 12, ForKind::Serial, store(out, j + 6, floordiv(j, 4)));
  CHECK(emit_c_backend(PrimFunc{{out}, neg}).find("mrd_floordiv_i32(v0, 4)") != std::string::npos);
  auto k = build(src);
  Aligned<int32_t> o(12);
  void* args[] = {o.p};
  REQUIRE(k->entry(args) == 0);
  for (int x = 0; x < 12; ++x) CHECK(o[x] == (x / 4) * 10 + x % 4);
}

// out[i, r] = sum_k in[i, k] * w[r, k] with acc[4] (local) accumulating over a serial k and
// an unrolled r: every index into acc is constant once r is expanded, so acc lives in scalar
// registers for its whole scope.
TEST_CASE("emit_c: a local buffer with constant indices becomes scalar variables") {
  const int n = 37;
  auto in = BufferNode::make("in", DType::Float32, {n, n});
  auto w = BufferNode::make("w", DType::Float32, {4, n});
  auto out = BufferNode::make("out", DType::Float32, {n, 4});
  auto acc = BufferNode::make("acc.local", DType::Float32, {4}, MemScope::Local);
  Var i("i"), k("k"), r0("r0"), r1("r1"), r2("r2");
  Stmt init = ForNode::make(r0, 0, 4, ForKind::Unrolled, store(acc, r0, Expr(0.0f)));
  Stmt upd = ForNode::make(k, 0, n, ForKind::Serial,
      ForNode::make(r1, 0, 4, ForKind::Unrolled,
                    store(acc, r1, load(acc, r1) + load(in, i * n + k) * load(w, r1 * n + k))));
  Stmt out_st = ForNode::make(r2, 0, 4, ForKind::Unrolled, store(out, i * 4 + r2, load(acc, r2)));
  Stmt body = ForNode::make(i, 0, n, ForKind::Serial,
                            AllocateNode::make(acc, SeqNode::make({init, upd, out_st})));
  std::string src = emit_c_backend(PrimFunc{{in, w, out}, body});
  INFO(src);
  // Four scalar variables stand for acc; the loop over k touches no array named for it.
  CHECK(src.find("float r") != std::string::npos);
  CHECK(src.find("b3[0]") == std::string::npos);
  CHECK(src.find("GCC unroll") == std::string::npos);
  auto kern = build(src);
  Aligned<float> a(n * n), b(4 * n), o(n * 4);
  for (int x = 0; x < n * n; ++x) a[x] = float((x * 7) % 11) - 5.0f;
  for (int x = 0; x < 4 * n; ++x) b[x] = float((x * 5) % 9) - 4.0f;
  void* args[] = {a.p, b.p, o.p};
  REQUIRE(kern->entry(args) == 0);
  for (int x = 0; x < n; ++x)
    for (int y = 0; y < 4; ++y) {
      float want = 0;
      for (int z = 0; z < n; ++z) want += a[x * n + z] * b[y * n + z];
      REQUIRE(o[x * 4 + y] == want);
    }
}

// An unrolled loop over a register region: 8 copies of 32 scalar accumulators would be 256
// variables, past the scalar register budget, so the loop gets no unroll pragma (GCC would
// keep all 256 live across the k loop and vectorize it over them, for tens of seconds); the
// kernel still computes the same values.
TEST_CASE("emit_c: no unroll pragma over register regions past the register budget") {
  const int rows = 3, depth = 5, copies = 8, width = 32, cols = copies * width;
  auto in = BufferNode::make("in", DType::Float32, {rows, depth});
  auto w = BufferNode::make("w", DType::Float32, {depth, cols});
  auto out = BufferNode::make("out", DType::Float32, {rows, cols});
  auto acc = BufferNode::make("acc.local", DType::Float32, {cols}, MemScope::Local);
  Var i("i"), k("k"), u("u"), c("c"), r0("r0"), r1("r1");
  Stmt init = ForNode::make(r0, 0, cols, ForKind::Serial, store(acc, r0, Expr(0.0f)));
  Expr col = u * width + c;
  Stmt upd = ForNode::make(
      k, 0, depth, ForKind::Serial,
      ForNode::make(u, 0, copies, ForKind::Unrolled,
                    ForNode::make(c, 0, width, ForKind::Unrolled,
                                  store(acc, col,
                                        load(acc, col) +
                                            load(in, i * depth + k) * load(w, k * cols + col)))));
  Stmt out_st =
      ForNode::make(r1, 0, cols, ForKind::Serial, store(out, i * cols + r1, load(acc, r1)));
  Stmt body = ForNode::make(i, 0, rows, ForKind::Serial,
                            AllocateNode::make(acc, SeqNode::make({init, upd, out_st})));
  std::string src = emit_c_backend(PrimFunc{{in, w, out}, body});
  INFO(src);
  // The copies' 32 accumulators are scalar variables, the loop over them a plain loop.
  CHECK(src.find("float r") != std::string::npos);
  CHECK(src.find("GCC unroll") == std::string::npos);
  auto kern = build(src);
  Aligned<float> a(rows * depth), b(depth * cols), o(rows * cols);
  for (int x = 0; x < rows * depth; ++x) a[x] = float((x * 7) % 11) - 5.0f;
  for (int x = 0; x < depth * cols; ++x) b[x] = float((x * 5) % 9) - 4.0f;
  void* args[] = {a.p, b.p, o.p};
  REQUIRE(kern->entry(args) == 0);
  for (int x = 0; x < rows; ++x)
    for (int y = 0; y < cols; ++y) {
      float want = 0;
      for (int z = 0; z < depth; ++z) want += a[x * depth + z] * b[z * cols + y];
      REQUIRE(o[x * cols + y] == want);
    }
}

// The register tile of a tiled matmul: for each row block (serial ib) the accumulator rows
// (unrolled ii) times 32 lanes (vectorized j) live in vector variables over the body of the k
// loop, under a lane-invariant guard as TVM's bound checks produce; a lane-invariant operand
// is broadcast.
TEST_CASE("emit_c: vectorized loops become vector statements with register accumulators") {
  const int m = 10, n = 32, kk = 9;  // rows 3 blocks of 4, the last one partial
  auto A = BufferNode::make("A", DType::Float32, {m, kk});
  auto B = BufferNode::make("B", DType::Float32, {kk, n});
  auto C = BufferNode::make("C", DType::Float32, {m, n});
  auto acc = BufferNode::make("C.local", DType::Float32, {4, n}, MemScope::Local);
  Var ib("ib"), k("k"), ii("ii"), j("j"), ii0("ii0"), j0("j0"), ii2("ii2"), j2("j2");
  Expr row = ib * 4 + ii;
  auto guard = [&](Expr r, Stmt s) {
    return IfThenElseNode::make(CallNode::make(CallOp::Likely, {r < m}), std::move(s));
  };
  Stmt init = ForNode::make(ii0, 0, 4, ForKind::Unrolled,
      ForNode::make(j0, 0, n, ForKind::Vectorized, store(acc, ii0 * n + j0, Expr(0.0f))));
  Stmt upd = ForNode::make(k, 0, kk, ForKind::Serial,
      ForNode::make(ii, 0, 4, ForKind::Unrolled,
          ForNode::make(j, 0, n, ForKind::Vectorized,
              guard(row, store(acc, ii * n + j,
                               load(acc, ii * n + j) + load(A, row * kk + k) * load(B, k * n + j))))));
  Stmt wb = ForNode::make(ii2, 0, 4, ForKind::Serial,
      ForNode::make(j2, 0, n, ForKind::Vectorized,
          guard(ib * 4 + ii2, store(C, (ib * 4 + ii2) * n + j2, load(acc, ii2 * n + j2) * 2.0f))));
  Stmt body = ForNode::make(ib, 0, 3, ForKind::Serial,
                            AllocateNode::make(acc, SeqNode::make({init, upd, wb})));
  std::string src = emit_c_backend(PrimFunc{{A, B, C}, body});
  INFO(src);
  CHECK(src.find("mrd_v16f r") != std::string::npos);      // accumulators in vector variables
  CHECK(src.find("mrd_bc_v16f(b0[") != std::string::npos);  // A broadcast
  CHECK(src.find("mrd_ld_v16f(&b1[") != std::string::npos); // B loaded contiguously
  CHECK(src.find("mrd_st_v16f(&b2[") != std::string::npos); // C stored contiguously
  CHECK(src.find("omp simd") == std::string::npos);
  auto kern = build(src);
  Aligned<float> a(m * kk), b(kk * n), c(m * n);
  for (int x = 0; x < m * kk; ++x) a[x] = float((x * 3) % 7) - 3.0f;
  for (int x = 0; x < kk * n; ++x) b[x] = float((x * 5) % 13) - 6.0f;
  for (int x = 0; x < m * n; ++x) c[x] = -1234.0f;
  void* args[] = {a.p, b.p, c.p};
  REQUIRE(kern->entry(args) == 0);
  for (int x = 0; x < m; ++x)
    for (int y = 0; y < n; ++y) {
      float want = 0;
      for (int z = 0; z < kk; ++z) want += a[x * kk + z] * b[z * n + y];
      REQUIRE(c[x * n + y] == want * 2.0f);
    }
}

// Bodies the vector form cannot express keep the scalar loop: a strided read into memory, a
// branch with an else case that varies across lanes, a call.
TEST_CASE("emit_c: vectorized loops outside the vector form fall back to omp simd") {
  const int n = 16;
  auto in = BufferNode::make("in", DType::Float32, {2 * n});
  auto out = BufferNode::make("out", DType::Float32, {3 * n});
  Var j("j"), j2("j2"), j3("j3");
  Stmt strided = ForNode::make(j, 0, n, ForKind::Vectorized, store(out, j, load(in, j * 2) + 1.0f));
  Stmt varying = ForNode::make(j2, 0, n, ForKind::Vectorized,
      IfThenElseNode::make(j2 < 5, store(out, j2 + n, load(in, j2)), store(out, j2 + n, Expr(7.0f))));
  Stmt call = ForNode::make(j3, 0, n, ForKind::Vectorized,
      store(out, j3 + 2 * n, CallNode::make(CallOp::Sqrt, {load(in, j3)})));
  for (const Stmt& s : {strided, varying, call}) {
    std::string src = emit_c_backend(PrimFunc{{in, out}, s});
    INFO(src);
    CHECK(src.find("#pragma omp simd") != std::string::npos);
    CHECK(src.find("mrd_st_v") == std::string::npos);
  }
  std::string src = emit_c_backend(PrimFunc{{in, out}, SeqNode::make({strided, varying, call})});
  auto kern = build(src);
  Aligned<float> a(2 * n), o(3 * n);
  for (int x = 0; x < 2 * n; ++x) a[x] = float(x);
  void* args[] = {a.p, o.p};
  REQUIRE(kern->entry(args) == 0);
  for (int x = 0; x < n; ++x) {
    CHECK(o[x] == a[2 * x] + 1.0f);
    CHECK(o[n + x] == (x < 5 ? a[x] : 7.0f));
    CHECK(o[2 * n + x] == std::sqrt(a[x]));
  }
}

namespace {

// Runs `f` compiled and through the reference evaluator on the same float32 inputs (outputs
// start as a sentinel) and requires equal results for every parameter.
void check_against_interpreter(const PrimFunc& f, const std::string& src) {
  auto kern = build(src);
  std::vector<std::unique_ptr<Aligned<float>>> bufs;
  std::vector<std::vector<double>> ref(f.params.size());
  std::vector<void*> args;
  for (size_t p = 0; p < f.params.size(); ++p) {
    size_t n = 1;
    for (int64_t d : f.params[p]->shape) n *= static_cast<size_t>(d);
    bufs.push_back(std::make_unique<Aligned<float>>(n));
    for (size_t x = 0; x < n; ++x) {
      float v = p == 0 ? float((x * 7) % 11) - 5.5f : -999.0f;
      (*bufs.back())[x] = v;
      ref[p].push_back(v);
    }
    args.push_back(bufs.back()->p);
  }
  std::vector<std::vector<double>*> ptrs;
  for (auto& r : ref) ptrs.push_back(&r);
  interp::eval_primfunc(f, ptrs);
  REQUIRE(kern->entry(args.data()) == 0);
  for (size_t p = 0; p < f.params.size(); ++p) {
    for (size_t x = 0; x < ref[p].size(); ++x) {
      INFO("parameter " << p << " element " << x);
      REQUIRE((*bufs[p])[x] == static_cast<float>(ref[p][x]));
    }
  }
}

}  // namespace

// relu and clamp (max / min) over extents that 16-lane chunks do not divide: the remainder is
// cut into 8, 4, 2 lanes and single lanes.
TEST_CASE("emit_c: vectorized min and max become vector code with remainder chunks") {
  for (int n : {37, 16, 7, 3}) {
    auto in = BufferNode::make("in", DType::Float32, {n});
    auto relu = BufferNode::make("relu", DType::Float32, {n});
    auto clamp = BufferNode::make("clamp", DType::Float32, {n});
    Var j("j"), j2("j2");
    Stmt a = ForNode::make(j, 0, n, ForKind::Vectorized,
                           store(relu, j, BinaryNode::make(BinaryOp::Max, load(in, j), Expr(0.0f))));
    Stmt b = ForNode::make(j2, 0, n, ForKind::Vectorized,
        store(clamp, j2, BinaryNode::make(BinaryOp::Min,
                                          BinaryNode::make(BinaryOp::Max, load(in, j2) * 2.0f, Expr(-1.0f)),
                                          Expr(1.0f))));
    PrimFunc f{{in, relu, clamp}, SeqNode::make({a, b})};
    std::string src = emit_c_backend(f);
    INFO("extent " << n << "\n" << src);
    if (n == 37) {
      CHECK(src.find("mrd_vmax_v16f(mrd_ld_v16f(&b0[") != std::string::npos);
      CHECK(src.find("mrd_vmin_v16f(") != std::string::npos);
      CHECK(src.find("mrd_vmax_v4f(") != std::string::npos);  // lanes 32..35
      CHECK(src.find("b1[36] = mrd_max_f32(") != std::string::npos);  // lane 36, scalar
    }
    if (n == 7) CHECK(src.find("mrd_vmax_v4f(") != std::string::npos);
    if (n != 3) CHECK(src.find("omp simd") == std::string::npos);
    check_against_interpreter(f, src);
  }
}

// Padding: the condition on the lane is fixed per chunk (the loop is cut at the borders), so the
// loads outside the input are never made; a condition on an outer variable stays a branch.
TEST_CASE("emit_c: selects with affine conditions on the lane become vector code") {
  const int w = 20, rows = 3;
  auto in = BufferNode::make("in", DType::Float32, {rows * w});
  auto pad = BufferNode::make("pad", DType::Float32, {(rows + 2) * (w + 4)});
  auto pad2 = BufferNode::make("pad2", DType::Float32, {(rows + 2) * (w + 4)});
  Var r("r"), j("j"), r2("r2"), j2("j2");
  Expr inside = (r >= 1) && (r < rows + 1) && (j >= 2) && (j < w + 2);
  Stmt a = ForNode::make(r, 0, rows + 2, ForKind::Serial,
      ForNode::make(j, 0, w + 4, ForKind::Vectorized,
          store(pad, r * (w + 4) + j,
                SelectNode::make(inside, load(in, (r - 1) * w + j - 2) + 1.0f, Expr(0.0f)))));
  Expr inside2 = (r2 >= 1) && (r2 < rows + 1) && (j2 >= 2) && (j2 < w + 2);
  Stmt b = ForNode::make(r2, 0, rows + 2, ForKind::Serial,
      ForNode::make(j2, 0, w + 4, ForKind::Vectorized,
          store(pad2, r2 * (w + 4) + j2,
                CallNode::make(CallOp::IfThenElse,
                               {inside2, load(in, (r2 - 1) * w + j2 - 2), Expr(-1.0f)}))));
  PrimFunc f{{in, pad, pad2}, SeqNode::make({a, b})};
  std::string src = emit_c_backend(f);
  INFO(src);
  CHECK(src.find("omp simd") == std::string::npos);
  CHECK(src.find("mrd_st_v16f(&b1[") != std::string::npos);  // lanes 2..17 inside
  CHECK(src.find("mrd_ld_v16f(&b0[") != std::string::npos);
  CHECK(src.find("mrd_bc_v2f((0x0p+0f))") != std::string::npos);  // lanes 22..23 outside
  check_against_interpreter(f, src);
}

// A guard from a non-divisible split (likely(o * 16 + i < n)) is checked once per chunk, at its
// first and last lane: the full chunks run as vectors, the partial one lane by lane.
TEST_CASE("emit_c: guards in vectorized loops are checked per chunk") {
  for (int n : {37, 48, 33}) {
    auto in = BufferNode::make("in", DType::Float32, {48});
    auto out = BufferNode::make("out", DType::Float32, {48});
    Var o("o"), i("i");
    Expr idx = o * 16 + i;
    Stmt body = ForNode::make(o, 0, 3, ForKind::Serial,
        ForNode::make(i, 0, 16, ForKind::Vectorized,
            IfThenElseNode::make(CallNode::make(CallOp::Likely, {idx < n}),
                                 store(out, idx, BinaryNode::make(BinaryOp::Max, load(in, idx) * 3.0f, Expr(1.0f))))));
    PrimFunc f{{in, out}, body};
    std::string src = emit_c_backend(f);
    INFO("n = " << n << "\n" << src);
    CHECK(src.find("mrd_st_v16f(&b1[") != std::string::npos);
    CHECK(src.find("} else {") != std::string::npos);
    CHECK(src.find("omp simd") == std::string::npos);
    check_against_interpreter(f, src);
  }
}

// A guard from a non-divisible split on serial loops: the guard invariant in the inner loop
// moves out of it, and the one affine in the outer loop's variable becomes that loop's bound.
TEST_CASE("emit_c: guards affine in a serial loop's variable become its bounds") {
  for (int n : {10, 12, 1}) {
    auto in = BufferNode::make("in", DType::Float32, {12 * 5});
    auto out = BufferNode::make("out", DType::Float32, {12 * 5});
    Var io("io"), ii("ii"), j("j");
    Expr row = io * 4 + ii;
    Expr guard = CallNode::make(CallOp::Likely, {(row < n) && (row >= 1)});
    Stmt body = ForNode::make(io, 0, 3, ForKind::Serial,
        ForNode::make(ii, 0, 4, ForKind::Serial,
            ForNode::make(j, 0, 5, ForKind::Serial,
                IfThenElseNode::make(guard, store(out, row * 5 + j, load(in, row * 5 + j) * 2.0f + 1.0f)))));
    PrimFunc f{{in, out}, body};
    std::string src = emit_c_backend(f);
    INFO("n = " << n << "\n" << src);
    CHECK(src.find("mrd_min_i64(INT64_C(4), ") != std::string::npos);
    CHECK(src.find("mrd_max_i64(INT64_C(0), ") != std::string::npos);
    CHECK(src.find("__builtin_expect") == std::string::npos);
    check_against_interpreter(f, src);
  }
}

// A strided read (a transposed operand) accumulated into registers is gathered lane by lane.
TEST_CASE("emit_c: strided reads into a register accumulator are gathered") {
  const int n = 16, kk = 3;
  auto in = BufferNode::make("in", DType::Float32, {n * kk});
  auto out = BufferNode::make("out", DType::Float32, {n});
  auto acc = BufferNode::make("acc", DType::Float32, {n}, MemScope::Local);
  Var j0("j0"), k("k"), j("j"), j2("j2");
  Stmt body = AllocateNode::make(acc, SeqNode::make({
      ForNode::make(j0, 0, n, ForKind::Vectorized, store(acc, j0, Expr(0.0f))),
      ForNode::make(k, 0, kk, ForKind::Serial,
          ForNode::make(j, 0, n, ForKind::Vectorized, store(acc, j, load(acc, j) + load(in, j * kk + k)))),
      ForNode::make(j2, 0, n, ForKind::Vectorized, store(out, j2, load(acc, j2)))}));
  PrimFunc f{{in, out}, body};
  std::string src = emit_c_backend(f);
  INFO(src);
  CHECK(src.find("mrd_p[INT64_C(45)]}") != std::string::npos);  // lane 15 of a stride-3 read
  CHECK(src.find("omp simd") == std::string::npos);
  check_against_interpreter(f, src);
}

TEST_CASE("store counts of huge unrolled nests saturate: the nest stays loops") {
  auto C = BufferNode::make("C", DType::Float32, {4});
  // Four unrolled loops of 2^20 iterations around one store: 2^80 stores, beyond int64.
  Stmt s = store(C, Expr(0), Expr(1.0f));
  std::vector<Var> vars = {Var("a"), Var("b"), Var("c"), Var("d")};
  for (const Var& v : vars) s = ForNode::make(v, 0, int64_t{1} << 20, ForKind::Unrolled, s);
  Stmt out = mrd::lower::expand_unrolled(s, mrd::lower::kMaxUnrolledStoresC);
  REQUIRE(out->kind == StmtKind::For);
  CHECK(out.as<ForNode>()->for_kind == ForKind::Unrolled);
  // A small nest still expands: 2 x 3 copies of the store.
  Stmt small = store(C, Expr(0), Expr(1.0f));
  small = ForNode::make(Var("x"), 0, 2, ForKind::Unrolled,
                        ForNode::make(Var("y"), 0, 3, ForKind::Unrolled, small));
  Stmt expanded = mrd::lower::expand_unrolled(small, mrd::lower::kMaxUnrolledStoresC);
  REQUIRE(expanded->kind == StmtKind::Seq);
  CHECK(expanded.as<SeqNode>()->stmts.size() == 6);
}

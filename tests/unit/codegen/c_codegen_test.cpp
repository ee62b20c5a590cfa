// Hand-built PrimFuncs through emit_c, compiled by the system compiler and run.
#include <catch2/catch.hpp>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "common/codegen/c_codegen.h"
#include "common/ir/expr.h"
#include "common/ir/stmt.h"

using namespace mrd;
using namespace mrd::ir;

namespace {

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
  auto dir = std::filesystem::temp_directory_path() / ("mrd-codegen-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string stem = (dir / ("k" + std::to_string(counter++))).string();
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

template <typename T>
struct Aligned {
  T* p;
  size_t n;
  explicit Aligned(size_t count) : n(count) {
    p = static_cast<T*>(std::aligned_alloc(64, (count * sizeof(T) + 63) / 64 * 64));
    for (size_t i = 0; i < n; ++i) p[i] = T();
  }
  ~Aligned() { std::free(p); }
  T& operator[](size_t i) { return p[i]; }
};

Expr load(const Buffer& b, Expr i) { return BufferLoadNode::make(b, {std::move(i)}); }
Stmt store(const Buffer& b, Expr i, Expr v) { return StoreNode::make(b, {std::move(i)}, std::move(v)); }

// C[i, j] = sum_k A[i, k] * B[k, j] with the given kinds on i, j, k.
PrimFunc matmul(int n, ForKind ki, ForKind kj, ForKind kk) {
  auto A = BufferNode::make("A", DType::Float32, {n, n});
  auto B = BufferNode::make("B", DType::Float32, {n, n});
  auto C = BufferNode::make("C", DType::Float32, {n, n});
  Var i("i"), j("j"), k("k");
  Expr cij = i * n + j;
  Stmt init = store(C, cij, Expr(0.0f));
  Stmt upd = store(C, cij, load(C, cij) + load(A, i * n + k) * load(B, k * n + j));
  Stmt body = ForNode::make(i, 0, n,  ki,
      SeqNode::make({ForNode::make(j, 0, n, kj, init),
                     ForNode::make(k, 0, n, kk, ForNode::make(j, 0, n, kj, upd))}));
  return PrimFunc{{A, B, C}, body};
}

void check_matmul(const PrimFunc& f, int n) {
  auto k = build(codegen::emit_c(f));
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
  std::string src = codegen::emit_c(f);
  CHECK(src.find("#pragma omp parallel for schedule(static)") != std::string::npos);
  CHECK(src.find("#pragma omp simd") != std::string::npos);
  // k holds the vectorized j loop: 24 copies of it are too many to unroll before
  // vectorization; that is left to the compiler. 8 copies are fine.
  CHECK(src.find("#pragma GCC unroll") == std::string::npos);
  PrimFunc few = matmul(8, ForKind::Parallel, ForKind::Vectorized, ForKind::Unrolled);
  CHECK(codegen::emit_c(few).find("#pragma GCC unroll 8") != std::string::npos);
  check_matmul(few, 8);
  check_matmul(f, n);
  PrimFunc g = matmul(n, ForKind::Parallel, ForKind::Serial, ForKind::Unrolled);
  CHECK(codegen::emit_c(g).find("#pragma GCC unroll 24") != std::string::npos);
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
  auto k = build(codegen::emit_c(PrimFunc{{out, out64}, body}));
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
  auto k = build(codegen::emit_c(PrimFunc{{in, out}, body}));
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
    std::string src = codegen::emit_c(PrimFunc{{in, out}, body});
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
  std::string src = codegen::emit_c(PrimFunc{{out, out64}, body});
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

TEST_CASE("emit_c: names from the workload never become code") {
  auto a = BufferNode::make("x*/ int evil(); /*", DType::Float32, {1});
  Var i("i; system(\"rm -rf /\");");
  Stmt body = ForNode::make(i, 0, 1, ForKind::Serial, store(a, i, Expr(1.0f)));
  std::string src = codegen::emit_c(PrimFunc{{a}, body});
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
  std::string src = codegen::emit_c(PrimFunc{{out}, body});
  CHECK(src.find("(v0 / 4)") != std::string::npos);
  CHECK(src.find("(v0 % 4)") != std::string::npos);
  CHECK(src.find("mrd_floordiv_i32(v0") == std::string::npos);
  Var j("j");  // a loop starting below zero keeps the floor helpers
  Stmt neg = ForNode::make(j, -6, 12, ForKind::Serial, store(out, j + 6, floordiv(j, 4)));
  CHECK(codegen::emit_c(PrimFunc{{out}, neg}).find("mrd_floordiv_i32(v0, 4)") != std::string::npos);
  auto k = build(src);
  Aligned<int32_t> o(12);
  void* args[] = {o.p};
  REQUIRE(k->entry(args) == 0);
  for (int x = 0; x < 12; ++x) CHECK(o[x] == (x / 4) * 10 + x % 4);
}

// build_candidate and run_candidate end to end, with the real compiler: every error code from
// a real cause, the compile cache through a counting compiler, and the compiled output
// against the reference interpreter.
#include "common/measure/pipeline.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "common/ir/te.h"
#include "common/measure/system_compiler.h"
#include "common/registry/registry.h"
#include "common/util/error.h"
#include "tests/support/scoped_tmpdir.h"
#include "tests/support/temp_dir.h"

using namespace mrd;
using namespace mrd::measure;

namespace {

// One cache directory per test process, shared by the tests of this file.
std::string test_cache_dir() {
  static const mrd::testing::TempDir dir("mrd-pipeline-test");
  return dir.path.string();
}

BuildConfig config() {
  BuildConfig c;
  c.cache_dir = test_cache_dir();
  return c;
}

Task matmul(int64_t n, int64_t l, int64_t m, std::string target = "llvm -keys=cpu") {
  Task t;
  t.workload = registry::FunctionWorkload{"matmul", {n, l, m, std::string("float32")}};
  t.target = std::move(target);
  return t;
}

MeasureOptions quick() {
  MeasureOptions o;
  o.number = 1;
  o.repeat = 1;
  o.min_repeat_ms = 0;
  o.check_correctness = true;
  return o;
}

// Counts compile calls on the way to the real compiler.
class CountingCompiler : public Compiler {
 public:
  SystemCompiler real{"cc"};
  int calls = 0;
  std::string identity() const override { return real.identity(); }
  CompileOutcome compile(const CompileRequest& r) override {
    ++calls;
    return real.compile(r);
  }
};

MeasureResult measure_one(const Task& t, const std::string& steps, const MeasureOptions& o,
                      const BuildConfig& c = config()) {
  BuildOutput b = build_candidate(t, steps, o, c);
  if (b.result.error_no != MeasureErrorNo::NoError) return b.result;
  return run_candidate(t, steps, b.artifact, o);
}

// A hand-written kernel over matmul's arguments (float32 A, B, C), compiled as the C backend's
// kernels are: what a faulty candidate of the task could do.
std::string hand_kernel(const std::string& name, const std::string& body) {
  std::filesystem::path dir = std::filesystem::path(test_cache_dir()) / "hand";
  std::filesystem::create_directories(dir);
  std::string src = (dir / (name + ".c")).string(), so = (dir / (name + ".so")).string();
  std::ofstream(src) << "#include <stdint.h>\nint32_t mrd_entry(void* const* args) {\n"
                     << "  float* A = (float*)args[0]; float* B = (float*)args[1]; float* C = (float*)args[2];\n"
                     << "  (void)A; (void)B; (void)C;\n  " << body << "\n  return 0;\n}\n";
  SystemCompiler cc("cc");
  CompileOutcome out = cc.compile({src, so, {"-O1", "-fPIC", "-shared"}, 30});
  INFO(out.message);
  REQUIRE(out.status == CompileOutcome::Status::Ok);
  return so;
}

// The body of a hand kernel computing C = A * B for matmul(n, l, m), plainly.
std::string matmul_body(int n, int l, int m) {
  std::string N = std::to_string(n), L = std::to_string(l), M = std::to_string(m);
  return "for (int i = 0; i < " + N + "; ++i) for (int j = 0; j < " + M + "; ++j) {\n"
         "    float s = 0; for (int k = 0; k < " + L + "; ++k) s += A[i * " + L + " + k] * B[k * " + M + " + j];\n"
         "    C[i * " + M + " + j] = s; }\n  ";
}

const char* kTiled =
    R"([["SP", 2, 0, 48, [2, 4], 1], ["SP", 2, 3, 40, [8], 1], ["SP", 2, 5, 32, [4], 1],)"
    R"( ["RE", 2, [0, 3, 5, 1, 6, 2, 4]], ["FU", 2, [0, 1]], ["AN", 2, 0, 3], ["AN", 2, 5, 2],)"
    R"( ["PR", 2, 0, "auto_unroll_max_step$16"]])";

}  // namespace

TEST_CASE("pipeline: a default and a tiled matmul build, run and match the interpreter") {
  for (std::string target : {"llvm -keys=cpu", "llvm -mcpu=znver3", "c"})
  for (std::string steps : {std::string("[]"), std::string(kTiled)}) {
    INFO(target << ": " << steps);
    MeasureResult r = measure_one(matmul(48, 32, 40, target), steps, quick());
    INFO(r.error_msg);
    CHECK(r.error_no == MeasureErrorNo::NoError);
    REQUIRE(r.costs.size() == 1);
    CHECK(r.costs[0] > 0);
    CHECK(r.run_seconds > 0);
    CHECK(r.timestamp > 1.7e9);
  }
}

// A workload of tensors built here, sent as a TVM tensor workload is (its key from its DAG).
Task tensor_task(std::vector<ir::Tensor> tensors, std::string target) {
  Task t;
  std::string key = registry::workload_key(registry::TensorWorkload{"", tensors});
  t.workload = registry::TensorWorkload{key, std::move(tensors)};
  t.target = std::move(target);
  return t;
}

// The tensors' default state and `scheduled` measure on the LLVM and C backends with the
// reference check on, without an error.
void check_on_both_backends(const std::vector<ir::Tensor>& tensors, const std::string& scheduled) {
  for (std::string target : {"llvm -keys=cpu", "c"})
  for (std::string steps : {std::string("[]"), scheduled}) {
    INFO(target << ": " << steps);
    MeasureResult r = measure_one(tensor_task(tensors, target), steps, quick());
    INFO(r.error_msg);
    CHECK(r.error_no == MeasureErrorNo::NoError);
  }
}

// A quantized layer: uint8 x int8 -> int32 dense, requantized to int8 through float32 (round,
// clip), and uint8 arithmetic that wraps, divides, compares and takes the max as unsigned.
// Stages: 0 X, 1 W, 2 D, 3 Q, 4 U.
Task quantized(std::string target) {
  using namespace ir;
  Tensor X = placeholder({16, 64}, "X", DType::UInt8);
  Tensor W = placeholder({32, 64}, "W", DType::Int8);
  IterVar k = reduce_axis(0, 64, "k");
  Tensor D = compute({16, 32}, [&](Var i, Var j) {
    return sum(cast(DType::Int32, X(i, k)) * cast(DType::Int32, W(j, k)), {k});
  }, "D");
  Tensor Q = compute({16, 32}, [&](Var i, Var j) {
    // The inputs are 1..9: D is some 900..2900, r some -45..75, the clip binds at the ends.
    Expr r = round(cast(DType::Float32, D(i, j)) * Expr(0.06f) - Expr(100.0f));
    return cast(DType::Int8, max(min(r, Expr(127.0f)), Expr(-128.0f)));
  }, "Q");
  auto u8 = [](int v) { return IntImmNode::make(DType::UInt8, v); };
  Tensor U = compute({16, 64}, [&](Var i, Var j) {
    Expr y = X(i, j) * u8(30);  // the inputs are 1..9: 30..240, and 270 wraps to 14
    // As int8, 180..240 would be negative: the comparison, division and max would differ.
    return select(y > u8(150), max(y / u8(7), y - u8(100)), y);
  }, "U");
  return tensor_task({X, W, Q, U}, std::move(target));
}

TEST_CASE("pipeline: int8 and uint8 tensors compute as the interpreter says on both backends") {
  // Tiled, parallel, unrolled, and vectorized over int8 reads, the int32 -> float -> int8
  // requantization and the uint8 arithmetic.
  const std::string scheduled = R"([["SP", 2, 0, 16, [4], 1], ["SP", 2, 2, 32, [8], 1],
      ["RE", 2, [0, 2, 1, 4, 3]], ["AN", 2, 4, 2], ["AN", 2, 0, 3],
      ["PR", 2, 0, "auto_unroll_max_step$16"], ["AN", 3, 1, 2], ["SP", 4, 1, 64, [16], 1],
      ["AN", 4, 2, 2]])";
  for (std::string target : {"llvm -keys=cpu", "llvm -mcpu=znver3", "c"})
  for (std::string steps : {std::string("[]"), scheduled}) {
    INFO(target << ": " << steps);
    Task t = quantized(target);
    BuildOutput b = build_candidate(t, steps, quick(), config());
    INFO(b.result.error_msg);
    REQUIRE(b.result.error_no == MeasureErrorNo::NoError);
    if (target != "c" && steps != "[]") {
      // The uint8 vector loop divides, compares and takes the max as unsigned.
      CHECK(b.source.find("udiv <16 x i8>") != std::string::npos);
      CHECK(b.source.find("icmp ugt <16 x i8>") != std::string::npos);
      CHECK(b.source.find("fptosi <32 x float>") != std::string::npos);
    }
    MeasureResult r = run_candidate(t, steps, b.artifact, quick());
    INFO(r.error_msg);
    CHECK(r.error_no == MeasureErrorNo::NoError);
  }
}

TEST_CASE("pipeline: a product reduction computes as the interpreter says on both backends") {
  using namespace ir;
  Tensor X = placeholder({16, 12}, "X");
  IterVar r = reduce_axis(0, 12, "r");
  Tensor P = compute({16}, [&](Var i) { return prod(X(i, r) * Expr(0.25f) + Expr(0.5f), {r}); }, "P");
  // The product over r with 8 lanes of i in one vector accumulator.
  const std::string vectorized = R"([["SP", 1, 0, 16, [8], 1], ["RE", 1, [0, 2, 1]], ["AN", 1, 2, 2]])";
  check_on_both_backends({X, P}, vectorized);
}

TEST_CASE("pipeline: sin, cos, exp2, log2, log10 and isnan compute as the interpreter says on both backends") {
  using namespace ir;
  Tensor X = placeholder({16, 32}, "X");
  Tensor Y = compute({16, 32}, [&](Var i, Var j) {
    Expr x = X(i, j), positive = fabs(x) + Expr(1.0f);
    // The inputs are in [1, 10): the log is NaN for those below 5.5.
    Expr nan = select(isnan(log(x - Expr(5.5f))), Expr(100.0f), Expr(0.0f));
    return sin(x) + cos(x) * Expr(2.0f) + exp2(x) + log2(positive) + log10(positive) + nan;
  }, "Y");
  // Vectorized 16 lanes: the math calls as vectors, isnan lane by lane.
  const std::string vectorized = R"([["SP", 1, 1, 32, [16], 1], ["AN", 1, 2, 2]])";
  check_on_both_backends({X, Y}, vectorized);
}

TEST_CASE("pipeline: truncmod, bitwise calls and shifts on int16 and int32 compute as the interpreter says on both backends") {
  using namespace ir;
  // The inputs are 1..9; the bodies make negative values, so that truncmod differs from
  // floormod and an arithmetic right shift from a logical one.
  Tensor X = placeholder({16, 32}, "X", DType::Int16);
  Tensor S = placeholder({16, 32}, "S", DType::Int32);
  Tensor E = compute({16, 32}, [&](Var i, Var j) {
    Expr x = cast(DType::Int32, X(i, j)), s = S(i, j);
    Expr negative = x * -7 + 3;  // -60..-4
    return truncmod(negative, 4) + truncmod(s * 5, 7) + bitwise_and(s, 5) + bitwise_xor(s, j * 3) +
           bitwise_or(s, i) + bitwise_not(s) + shift_left(s, 3) + shift_right(negative * 100, s);
  }, "E");
  Tensor W = compute({16, 32}, [&](Var i, Var j) {
    Expr x = X(i, j);
    // 9 * 5000 wraps at 16 bits; the shift and the remainder then see a negative int16.
    Expr y = x * IntImmNode::make(DType::Int16, 5000);
    return shift_right(y, IntImmNode::make(DType::Int16, 2)) + truncmod(y, IntImmNode::make(DType::Int16, 9));
  }, "W");
  Tensor F = compute({16, 32}, [&](Var i, Var j) {
    return truncmod(cast(DType::Float32, X(i, j)) * Expr(-1.7f), Expr(2.5f));  // fmod
  }, "F");
  // Each output's inner axis vectorized 16 lanes: the calls stay vector operations. Stages:
  // 0 X, 1 S, 2 E, 3 W, 4 F.
  const std::string vectorized = R"([["SP", 2, 1, 32, [16], 1], ["AN", 2, 2, 2],
      ["SP", 3, 1, 32, [16], 1], ["AN", 3, 2, 2], ["SP", 4, 1, 32, [16], 1], ["AN", 4, 2, 2]])";
  check_on_both_backends({X, S, E, W, F}, vectorized);
}

TEST_CASE("pipeline: uint16 and uint32 tensors wrap, shift, divide and compare as unsigned on both backends") {
  using namespace ir;
  Tensor Y = placeholder({16, 32}, "Y", DType::UInt32);
  Tensor Z = placeholder({16, 32}, "Z", DType::UInt16);
  auto u32 = [](int64_t v) { return IntImmNode::make(DType::UInt32, v); };
  auto u16 = [](int64_t v) { return IntImmNode::make(DType::UInt16, v); };
  Tensor U = compute({16, 32}, [&](Var i, Var j) {
    // 2^28 * 1..9 reaches past 2^31 without wrapping (TVM's uint32 arithmetic is nuw): as
    // int32 those would be negative, and the shift, remainder and max would differ.
    Expr y = Y(i, j) * u32(int64_t{1} << 28);
    return max(shift_right(y, u32(3)) + truncmod(y, u32(1000)), y / u32(3)) + bitwise_xor(y, u32(0xff));
  }, "U");
  Tensor V = compute({16, 32}, [&](Var i, Var j) {
    Expr z = Z(i, j) * u16(30000);  // wraps at 16 bits from 3 on
    return select(z > u16(40000), z - u16(40000), bitwise_not(z)) + shift_left(z, u16(1));
  }, "V");
  // uint16 meets int16 in TVM's signed type of the larger width: int16, negative here.
  Tensor M = compute({16, 32}, [&](Var i, Var j) {
    return Z(i, j) + cast(DType::Int16, Y(i, j)) * IntImmNode::make(DType::Int16, -3);
  }, "M");
  // Stages: 0 Y, 1 U, 2 Z, 3 V, 4 M.
  const std::string vectorized = R"([["SP", 1, 1, 32, [16], 1], ["AN", 1, 2, 2],
      ["SP", 3, 1, 32, [16], 1], ["AN", 3, 2, 2], ["SP", 4, 1, 32, [16], 1], ["AN", 4, 2, 2]])";
  check_on_both_backends({Y, Z, U, V, M}, vectorized);
}

TEST_CASE("pipeline: an identical candidate is compiled once, a changed flag is a miss") {
  CountingCompiler cc;
  BuildConfig c = config();
  c.flags.push_back("-DMRD_CACHE_TEST=" + std::to_string(getpid()));  // fresh for this run
  BuildOutput a = build_candidate(matmul(16, 16, 16, "c"), "[]", quick(), c, cc);
  REQUIRE(a.result.error_no == MeasureErrorNo::NoError);
  CHECK_FALSE(a.result.cache_hit);
  BuildOutput b = build_candidate(matmul(16, 16, 16, "c"), "[]", quick(), c, cc);
  CHECK(b.result.cache_hit);
  CHECK(b.artifact == a.artifact);
  CHECK(cc.calls == 1);
  c.flags.push_back("-O2");
  BuildOutput d = build_candidate(matmul(16, 16, 16, "c"), "[]", quick(), c, cc);
  CHECK_FALSE(d.result.cache_hit);
  CHECK(cc.calls == 2);
  CHECK(run_candidate(matmul(16, 16, 16, "c"), "[]", d.artifact, quick()).error_no == MeasureErrorNo::NoError);
}

TEST_CASE("pipeline: INSTANTIATION_ERROR for invalid steps and workloads") {
  MeasureResult bad_iter = measure_one(matmul(16, 16, 16), R"([["SP", 2, 9, 16, [4], 1]])", quick());
  CHECK(bad_iter.error_no == MeasureErrorNo::InstantiationError);
  CHECK_FALSE(bad_iter.error_msg.empty());
  CHECK(measure_one(matmul(16, 16, 16), R"([["XX", 1]])", quick()).error_no == MeasureErrorNo::InstantiationError);
  CHECK(measure_one(matmul(16, 16, 16), "[[", quick()).error_no == MeasureErrorNo::InstantiationError);
  MeasureResult bad_target = measure_one(matmul(16, 16, 16, "cuda -arch=sm_80"), "[]", quick());
  CHECK(bad_target.error_no == MeasureErrorNo::InstantiationError);
  CHECK(bad_target.error_msg.find("not supported") != std::string::npos);
  Task unknown;
  unknown.workload = registry::FunctionWorkload{"no_such_workload", {}};
  MeasureResult u = measure_one(unknown, "[]", quick());
  CHECK(u.error_no == MeasureErrorNo::InstantiationError);
  CHECK(u.error_msg.find("matmul") != std::string::npos);  // lists what is known
}

TEST_CASE("pipeline: COMPILE_HOST carries the compiler's message") {
  BuildConfig c = config();
  c.flags.push_back("-fno-such-flag-at-all");
  MeasureResult r = measure_one(matmul(16, 16, 16, "c"), "[]", quick(), c);
  CHECK(r.error_no == MeasureErrorNo::CompileHost);
  CHECK(r.error_msg.find("no-such-flag-at-all") != std::string::npos);
  CHECK(r.build_seconds > 0);
  BuildConfig missing = config();
  missing.compiler = "/nonexistent/cc";
  CHECK(measure_one(matmul(16, 16, 16, "c"), "[]", quick(), missing).error_no == MeasureErrorNo::CompileHost);
}

TEST_CASE(
    "pipeline: a -mcpu LLVM 14 does not know is COMPILE_HOST naming it, as TVM's build error") {
  // LLVM alone would warn, make a subtarget without 64-bit mode and abort the process.
  for (const char* cpu : {"znver4", "native", "ZNVER3"}) {
    INFO(cpu);
    MeasureResult r = measure_one(matmul(16, 16, 16, str_cat("llvm -mcpu=", cpu)), "[]", quick());
    CHECK(r.error_no == MeasureErrorNo::CompileHost);
    CHECK(r.error_msg.find(str_cat("`-mcpu=", cpu, "` is not valid in `-mtriple=")) !=
          std::string::npos);
  }
  // The CPUs LLVM 14 knows still build, generic and an x86-64 level among them.
  for (const char* cpu : {"generic", "x86-64-v3", "haswell"}) {
    INFO(cpu);
    MeasureResult r = measure_one(matmul(16, 16, 16, str_cat("llvm -mcpu=", cpu)), "[]", quick());
    CHECK(r.error_no == MeasureErrorNo::NoError);
  }
}

TEST_CASE(
    "pipeline: a -mtriple whose code cannot run here is COMPILE_HOST, not a hung or failed load") {
  // i686 code failed to load (no _GLOBAL_OFFSET_TABLE_), and LLVM 14's JIT waited forever on a
  // COFF object; aarch64 has no LLVM target in this build.
  for (const char* triple : {"i686-linux-gnu", "x86_64-pc-windows-msvc", "x86_64-pc-linux-gnux32",
                             "aarch64-linux-gnu"}) {
    INFO(triple);
    MeasureResult r =
        measure_one(matmul(16, 16, 16, str_cat("llvm -mtriple=", triple)), "[]", quick());
    CHECK(r.error_no == MeasureErrorNo::CompileHost);
    CHECK(r.error_msg.find(
              str_cat("-mtriple=", triple, " builds code that cannot run on this machine")) !=
          std::string::npos);
  }
  // This machine's own, spelt in other ways.
  for (const char* triple : {"x86_64-linux-gnu", "x86_64-unknown-linux-gnu", "x86_64-pc-linux"}) {
    INFO(triple);
    MeasureResult r =
        measure_one(matmul(16, 16, 16, str_cat("llvm -mtriple=", triple)), "[]", quick());
    CHECK(r.error_no == MeasureErrorNo::NoError);
  }
}

TEST_CASE("pipeline: BUILD_TIMEOUT when the compiler passes the build timeout") {
  BuildConfig c = config();
  c.flags.push_back("-DMRD_TIMEOUT_TEST=" + std::to_string(getpid()));  // never a cache hit
  MeasureOptions o = quick();
  o.build_timeout = 0.005;
  mrd::testing::ScopedTmpdir compiler_tmp("mrd-pipeline-test-tmp");  // what the killed cc leaves
  MeasureResult r = measure_one(matmul(16, 16, 16, "c"), "[]", o, c);
  CHECK(r.error_no == MeasureErrorNo::BuildTimeout);
  CHECK(r.error_msg.find("timeout") != std::string::npos);
}

TEST_CASE("pipeline: WRONG_ANSWER from a deliberately corrupted output") {
  MeasureOptions o = quick();
  o.corrupt_output_for_test = true;
  MeasureResult r = measure_one(matmul(24, 16, 8), "[]", o);
  CHECK(r.error_no == MeasureErrorNo::WrongAnswer);
  CHECK(r.error_msg.find("flat index 0") != std::string::npos);
  o.check_correctness = false;  // without the check the corruption goes unnoticed
  CHECK(measure_one(matmul(24, 16, 8), "[]", o).error_no == MeasureErrorNo::NoError);
}

TEST_CASE("pipeline: RUN_TIMEOUT for a long run with a tiny run timeout") {
  MeasureOptions o = quick();
  o.check_correctness = false;
  o.number = 1000;
  o.repeat = 100;
  o.min_repeat_ms = 100000;
  o.run_timeout = 0.05;
  MeasureResult r = measure_one(matmul(128, 128, 128), "[]", o);  // short calls, long run
  CHECK(r.error_no == MeasureErrorNo::RunTimeout);
  CHECK(r.error_msg.find("timeout") != std::string::npos);
}

TEST_CASE("pipeline: cache flush and repeats give one cost per repeat") {
  MeasureOptions o = quick();
  o.repeat = 3;
  o.number = 5;
  o.enable_cpu_cache_flush = true;
  MeasureResult r = measure_one(matmul(32, 32, 32), "[]", o);
  CHECK(r.error_no == MeasureErrorNo::NoError);
  CHECK(r.costs.size() == 3);
}

TEST_CASE("pipeline: the matmul_add gallery record, shrunk to 128^3, compiles, runs and matches") {
  // TVM's matmul_add tutorial schedule: SSRSRS tiling of matmul, the element-wise `out` split
  // to follow it (FSP) with matmul computed at its tile (CA), fused parallel outer loops,
  // vectorized inner loops, an unroll pragma.
  Task t;
  t.workload = registry::FunctionWorkload{"matmul_add", {int64_t(128), int64_t(128), int64_t(128), std::string("float32")}};
  const char* steps =
      R"([["SP", 2, 0, 128, [2, 8, 4], 1], ["SP", 2, 4, 128, [2, 2, 16], 1], ["SP", 2, 8, 128, [4], 1],)"
      R"( ["RE", 2, [0, 4, 1, 5, 8, 2, 6, 9, 3, 7]], ["FSP", 4, 0, 0, 2], ["FSP", 4, 3, 1, 2],)"
      R"( ["RE", 4, [0, 3, 1, 4, 2, 5]], ["CA", 2, 4, 3], ["FU", 4, [0, 1, 2, 3]], ["AN", 4, 0, 3],)"
      R"( ["PR", 2, 0, "auto_unroll_max_step$64"], ["AN", 2, 9, 2], ["AN", 4, 2, 2]])";
  for (std::string target : {"llvm -keys=cpu -mcpu=znver3", "c"}) {
    INFO(target);
    t.target = target;
    BuildOutput b = build_candidate(t, steps, quick(), config());
    INFO(b.result.error_msg);
    REQUIRE(b.result.error_no == MeasureErrorNo::NoError);
    if (target == "c") {
      CHECK(b.source.find("#pragma omp parallel for") != std::string::npos);
      // Vectorized loops: GCC vector statements, or omp simd where the body is not of that form.
      CHECK((b.source.find("mrd_st_v") != std::string::npos ||
             b.source.find("#pragma omp simd") != std::string::npos));
    } else {
      // The fused outer loops run on the OpenMP team; the vectorized loops are 16-lane vectors.
      CHECK(b.source.find("GOMP_parallel") != std::string::npos);
      CHECK(b.source.find("<16 x float>") != std::string::npos);
    }
    MeasureResult r = run_candidate(t, steps, b.artifact, quick());
    INFO(r.error_msg);
    CHECK(r.error_no == MeasureErrorNo::NoError);
  }
}

TEST_CASE("pipeline: skip-hopeless stops after a warm-up slower than the factor times the best") {
  Task t = matmul(32, 32, 32);
  MeasureOptions o = quick();
  o.repeat = 3;
  o.skip_hopeless = true;
  o.skip_hopeless_factor = 10;
  BuildOutput b = build_candidate(t, "[]", o, config());
  REQUIRE(b.result.error_no == MeasureErrorNo::NoError);
  // A best of a picosecond: any real call is hopeless beside it; the output is still checked.
  MeasureResult skipped = run_candidate(t, "[]", b.artifact, o, nullptr, 1e-12);
  CHECK(skipped.error_no == MeasureErrorNo::NoError);
  CHECK(skipped.timing_skipped);
  REQUIRE(skipped.costs.size() == 1);
  CHECK(skipped.costs[0] > 0);
  CHECK(skipped.error_msg.find("timing skipped: the warm-up call took") == 0);
  // A best of an hour, no best at all, or the option off: timed in full.
  for (double best : {3600.0, 0.0}) {
    MeasureResult timed = run_candidate(t, "[]", b.artifact, o, nullptr, best);
    CHECK_FALSE(timed.timing_skipped);
    CHECK(timed.costs.size() == 3);
  }
  o.skip_hopeless = false;
  CHECK(run_candidate(t, "[]", b.artifact, o, nullptr, 1e-12).costs.size() == 3);
}

TEST_CASE("pipeline: an output a candidate leaves unwritten is caught after a candidate that wrote it") {
  // The candidates of a task share their arguments; the outputs start from the sentinel again.
  Task t = matmul(16, 16, 16, "c");
  MeasureResult good = measure_one(t, "[]", quick());
  INFO(good.error_msg);
  REQUIRE(good.error_no == MeasureErrorNo::NoError);
  MeasureResult lazy = run_candidate(t, "[]", hand_kernel("writes-nothing", ""), quick());
  CHECK(lazy.error_no == MeasureErrorNo::WrongAnswer);
  CHECK(lazy.error_msg.find("256 of 256 elements") != std::string::npos);
  MeasureResult half = run_candidate(t, "[]", hand_kernel("writes-half", "for (int i = 0; i < 128; ++i) C[i] = 0;"), quick());
  CHECK(half.error_no == MeasureErrorNo::WrongAnswer);
}

TEST_CASE("pipeline: a candidate that writes into an input leaves the next one fresh inputs") {
  Task t = matmul(16, 16, 16, "c");
  REQUIRE(measure_one(t, "[]", quick()).error_no == MeasureErrorNo::NoError);
  // Writes the right product into C, then changes A for whoever comes next.
  std::string vandal = hand_kernel("writes-input", matmul_body(16, 16, 16) + "A[0] += 1.0f;");
  MeasureResult r = run_candidate(t, "[]", vandal, quick());
  INFO(r.error_msg);
  CHECK(r.error_no == MeasureErrorNo::WrongAnswer);  // its own later calls saw the changed A
  MeasureResult next = measure_one(t, "[]", quick());
  INFO(next.error_msg);
  CHECK(next.error_no == MeasureErrorNo::NoError);
}

TEST_CASE("pipeline: under layout_rewrite_option 2 the kernel takes its weight re-laid out and matches") {
  // A Relay task's option: TVM passes the layout-free weight already in the layout that the
  // schedule gives it. The run re-lays the task's weight out for the candidate, so the check
  // against the reference (computed from the workload's own layout) passes only if the
  // kernel reads the layout that lowering gave it and the run fed it that layout.
  Task t;
  t.workload = registry::FunctionWorkload{"dense_bias_relu", {int64_t(16), int64_t(64), int64_t(48)}};
  t.layout_rewrite_option = 2;
  const char* steps =
      R"([["CI", 4], ["SP", 2, 0, 16, [16, 1, 1], 1], ["SP", 2, 4, 48, [1, 1, 4], 1], ["SP", 2, 8, 64, [16], 1],)"
      R"( ["RE", 2, [0, 4, 1, 5, 8, 2, 6, 9, 3, 7]], ["FSP", 5, 0, 1, 1], ["FSP", 5, 2, 2, 1], ["RE", 5, [0, 2, 1, 3]],)"
      R"( ["CA", 2, 5, 1], ["FU", 5, [0, 1]], ["AN", 5, 0, 3], ["PR", 2, 0, "auto_unroll_max_step$0"],)"
      R"( ["AN", 2, 9, 2], ["AN", 5, 2, 2]])";
  for (std::string target : {"llvm -keys=cpu -mcpu=znver3", "c"}) {
    INFO(target);
    t.target = target;
    MeasureResult r = measure_one(t, steps, quick());
    INFO(r.error_msg);
    CHECK(r.error_no == MeasureErrorNo::NoError);
    // The same kernel fed the weight in the workload's layout computes something else.
    BuildOutput b = build_candidate(t, steps, quick(), config());
    REQUIRE(b.result.error_no == MeasureErrorNo::NoError);
    Task as_option_0 = t;
    as_option_0.layout_rewrite_option = 0;
    CHECK(run_candidate(as_option_0, steps, b.artifact, quick()).error_no == MeasureErrorNo::WrongAnswer);
  }
}

TEST_CASE("pipeline: the check lets a big output's rounding tail through, and nothing further") {
  // 128 x 128 outputs: 16384 / kRoundingTailPerElements = 1 element may miss the tolerance by
  // up to kRoundingTailFactor times it (a Winograd transform's rounding does that); a second
  // one, or one that misses by more, is a wrong answer.
  Task t = matmul(128, 8, 128, "c");
  REQUIRE(measure_one(t, "[]", quick()).error_no == MeasureErrorNo::NoError);
  // Kernel `name` computes the product, then moves some elements off by factors of the tolerance.
  auto error_of = [](const Task& task, const std::string& name, const std::string& off) {
    const auto& a = std::get<registry::FunctionWorkload>(task.workload).args;
    std::string body = matmul_body(int(std::get<int64_t>(a[0])), int(std::get<int64_t>(a[1])), int(std::get<int64_t>(a[2])));
    std::string miss = "#define MISS(i, f) C[i] += (f) * (1e-4f + 1e-3f * (C[i] < 0 ? -C[i] : C[i]))\n  ";
    MeasureResult r = run_candidate(task, "[]", hand_kernel(name, body + miss + off), quick());
    INFO(name << ": " << r.error_msg);
    return r.error_no;
  };
  CHECK(error_of(t, "tail-one", "MISS(100, 3);") == MeasureErrorNo::NoError);
  CHECK(error_of(t, "tail-two", "MISS(100, 3); MISS(7000, 3);") == MeasureErrorNo::WrongAnswer);
  CHECK(error_of(t, "tail-far", "MISS(100, 30);") == MeasureErrorNo::WrongAnswer);
  // A small output has no tail.
  Task small = matmul(16, 16, 16, "c");
  REQUIRE(measure_one(small, "[]", quick()).error_no == MeasureErrorNo::NoError);
  CHECK(error_of(small, "small-tail-one", "MISS(3, 3);") == MeasureErrorNo::WrongAnswer);
}

TEST_CASE(
    "pipeline: a long float32 sum in another order than the reference passes the check, a "
    "corrupted one does not") {
  // The sum of 4M squares. The reference adds them one by one in float32 (its domain order),
  // which rounds each addition at the ulp of a large partial sum; the state with 16 partial
  // sums (rfactor) rounds far less, and the two differ by more than the 1e-3 tolerance. The
  // state is no farther from the exact (float64) sum than the reference is, so it passes;
  // the sequential default state matches the reference itself; a corrupted output fails.
  using namespace mrd::ir;
  Tensor a = placeholder({2048, 2048}, "A");
  IterVar k = reduce_axis(0, 2048, "k"), l = reduce_axis(0, 2048, "l");
  Tensor s = compute(
      {},
      [&](const std::vector<Var>&) {
        return sum(a(k, l) * a(k, l), {k, l});
      },
      "S");
  const char* partial_sums = R"([["SP", 1, 1, 2048, [16], 1], ["RF", 1, 2, 0]])";
  for (const char* steps : {"[]", partial_sums}) {
    INFO(steps);
    MeasureResult r = measure_one(tensor_task({a, s}, "llvm -keys=cpu"), steps, quick());
    INFO(r.error_msg);
    CHECK(r.error_no == MeasureErrorNo::NoError);
  }
  MeasureOptions corrupt = quick();
  corrupt.corrupt_output_for_test = true;
  CHECK(measure_one(tensor_task({a, s}, "llvm -keys=cpu"), partial_sums, corrupt).error_no ==
        MeasureErrorNo::WrongAnswer);
}

// measurer best --export: the exported header and shared object, compiled into a small C
// program by the system compiler, compute what the reference interpreter computes.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/dag/compute_dag.h"
#include "common/interp/reference_interpreter.h"
#include "common/registry/registry.h"
#include "daemon_fixture.h"

using namespace mrd;
using namespace mrd::testing;

namespace {

struct Run {
  int code = -1;
  std::string out, err;
};

Run run(const std::string& exe, const std::vector<std::string>& args, const fs::path& dir) {
  fs::path out = dir / "run.out", err = dir / "run.err";
  fs::remove(out);  // the redirection does not truncate
  fs::remove(err);
  bp::child c(exe, bp::args(args), bp::std_out > out.string(), bp::std_err > err.string());
  c.wait();
  return {c.exit_code(), file_text(out), file_text(err)};
}

std::string record_line(const std::string& key, const std::string& target, const std::string& steps,
                        double cost, int error_no = 0) {
  nlohmann::json j;
  j["i"] = {{key, target, {1, 64, 64, 0, 0, 0, 0, 0}, "", 1, nlohmann::json::array()},
            {nlohmann::json::array(), nlohmann::json::parse(steps)}};
  j["r"] = {{cost}, error_no, 0.5, 1700000000};
  j["v"] = "v0.6";
  return j.dump();
}

/// A C program that fills A[N][L] and B[L][M] as interp::make_reference_input does, calls the
/// exported kernel through its typed wrapper and prints C[N][M], one value per line.
std::string c_program(const std::string& name, int n, int l, int m) {
  std::ostringstream s;
  s << "#include <stdio.h>\n#include <stdlib.h>\n#include \"kernel.h\"\n"
    << "static float fill(long i) { return (float)(((i * 7919) % 1000) / 1000.0 - 0.5); }\n"
    << "int main(void) {\n"
    << "  float (*A)[" << l << "] = aligned_alloc(64, sizeof(float[" << n << "][" << l << "]));\n"
    << "  float (*B)[" << m << "] = aligned_alloc(64, sizeof(float[" << l << "][" << m << "]));\n"
    << "  float (*C)[" << m << "] = aligned_alloc(64, sizeof(float[" << n << "][" << m << "]));\n"
    << "  for (long i = 0; i < " << n * l << "; ++i) A[i / " << l << "][i % " << l
    << "] = fill(i);\n"
    << "  for (long i = 0; i < " << l * m << "; ++i) B[i / " << m << "][i % " << m
    << "] = fill(i);\n"
    << "  if (" << name << "(A, B, C) != 0) return 1;\n"
    << "  for (int i = 0; i < " << n << "; ++i)\n"
    << "    for (int j = 0; j < " << m << "; ++j) printf(\"%.9g\\n\", C[i][j]);\n"
    << "  return 0;\n}\n";
  return s.str();
}

std::vector<double> reference_matmul(int n, int l, int m) {
  dag::ComputeDAG dag(registry::Registry::global().instantiate(
      registry::FunctionWorkload{"matmul", {int64_t{n}, int64_t{l}, int64_t{m}, "float32"}}));
  std::vector<interp::HostTensor> inputs;
  for (const auto& t : dag.tensors())
    if (t->is_placeholder()) inputs.push_back(interp::make_reference_input(*t.op()));
  return interp::evaluate(dag, inputs).back().data;
}

}  // namespace

TEST_CASE("measurer best --export writes a kernel a C program links and calls") {
  TempDir dir;
  fs::path log = dir.path / "tuning.log";
  {
    std::ofstream out(log);
    // The llvm workload's best is the split state (cost 1e-4); the c workload has one state.
    out << record_line(R"(["matmul", 16, 16, 16, "float32"])", "llvm -keys=cpu", "[]", 2e-4) << "\n"
        << record_line(R"(["matmul", 16, 16, 16, "float32"])", "llvm -keys=cpu",
                       R"([["SP", 2, 0, 16, [4], 1]])", 1e-4)
        << "\n"
        << record_line(R"(["matmul", 12, 20, 8, "float32"])", "c", "[]", 3e-4) << "\n"
        << record_line(R"(["matmul", 12, 20, 8, "float32"])", "c", "[]", 1e10, 1) << "\n";
  }
  fs::path exported = dir.path / "kernels";
  Run best = run(build_path("client/measurer"),
                 {"best", log.string(), "--export", exported.string(), "--json"}, dir.path);
  INFO(best.err);
  REQUIRE(best.code == 0);

  std::istringstream lines(best.out);
  std::vector<nlohmann::json> js;
  for (std::string line; std::getline(lines, line);) js.push_back(nlohmann::json::parse(line));
  REQUIRE(js.size() == 2);
  CHECK(js[0]["best_index"] == 1);
  CHECK(js[0]["mean_cost"].get<double>() == Approx(1e-4));
  CHECK(js[0]["gflops"].get<double>() == Approx(2.0 * 16 * 16 * 16 / 1e-4 / 1e9));
  CHECK(js[1]["best_index"] == 0);

  struct Case {
    std::string name, source;
    int n, l, m;
  };
  for (const Case& c : {Case{"matmul_16_16_16_float32", "kernel.ll", 16, 16, 16},
                        Case{"matmul_12_20_8_float32", "kernel.c", 12, 20, 8}}) {
    SECTION(c.name) {
      fs::path k = exported / c.name;
      for (const char* f : {"kernel.so", "kernel.h", "steps.json", "record.log"})
        CHECK(fs::exists(k / f));
      CHECK(fs::exists(k / c.source));
      std::string header = file_text(k / "kernel.h");
      CHECK(header.find("args[0]  A  float32[" + std::to_string(c.n) + "][" + std::to_string(c.l) +
                        "]  input") != std::string::npos);
      CHECK(header.find("float (*C)[" + std::to_string(c.m) + "]") != std::string::npos);

      { std::ofstream(k / "main.c") << c_program(c.name, c.n, c.l, c.m); }
      fs::path exe = dir.path / (c.name + "-main");
      Run cc =
          run(bp::search_path("cc").string(),
              {"-std=c11", "-Wall", "-Wextra", "-Werror", "-I", k.string(), (k / "main.c").string(),
               (k / "kernel.so").string(), "-Wl,-rpath," + k.string(), "-o", exe.string()},
              dir.path);
      INFO(cc.err);
      REQUIRE(cc.code == 0);
      Run prog = run(exe.string(), {}, dir.path);
      REQUIRE(prog.code == 0);

      std::vector<double> want = reference_matmul(c.n, c.l, c.m);
      std::istringstream got_text(prog.out);
      std::vector<double> got;
      for (double v; got_text >> v;) got.push_back(v);
      REQUIRE(got.size() == want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        INFO("element " << i);
        CHECK(std::abs(got[i] - want[i]) <= 1e-4 + 1e-3 * std::abs(want[i]));
      }
    }
  }
}

TEST_CASE("measurer best --export says which workload cannot be exported") {
  TempDir dir;
  fs::path log = dir.path / "tuning.log";
  // A step that does not apply to the workload: the record is read, the build fails.
  {
    std::ofstream(log) << record_line(R"(["matmul", 8, 8, 8, "float32"])", "llvm -keys=cpu",
                                      R"([["SP", 9, 0, 8, [2], 1]])", 1e-4)
                       << "\n";
  }
  Run best = run(build_path("client/measurer"),
                 {"best", log.string(), "--export", (dir.path / "k").string()}, dir.path);
  CHECK(best.code == 2);
  CHECK(best.err.find("[\"matmul\", 8, 8, 8, \"float32\"]: cannot export: cannot build") !=
        std::string::npos);
}

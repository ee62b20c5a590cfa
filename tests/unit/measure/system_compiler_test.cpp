// The real compiler behind the seam: success, rejected flags and sources, timeouts.
#include <catch2/catch.hpp>
#include <dlfcn.h>

#include <fstream>

#include "common/measure/build_cache.h"
#include "common/measure/kernel.h"
#include "common/measure/system_compiler.h"
#include "tests/support/scoped_tmpdir.h"
#include "tests/support/temp_dir.h"

using namespace mrd::measure;

namespace {

std::string scratch(const std::string& name) {
  static const mrd::testing::TempDir dir("mrd-cc-test");
  return dir.file(name);
}

const std::vector<std::string> kFlags = {"-O2", "-fPIC", "-shared", "-fopenmp"};
constexpr const char* kSource =
    "#include <stdint.h>\n#include <math.h>\n"
    "int32_t mrd_entry(void* const* args) { float* x = (float*)args[0];\n"
    "#pragma omp parallel for\n for (int i = 0; i < 64; ++i) x[i] = expf(0.0f) + i; return 0; }\n";

}  // namespace

TEST_CASE("system compiler: builds a loadable shared object") {
  SystemCompiler cc("cc");
  CHECK(cc.identity().find("cc") != std::string::npos);
  std::string src = scratch("ok.c"), so = scratch("ok.so");
  std::ofstream(src) << kSource;
  CompileOutcome out = cc.compile({src, so, kFlags, 30});
  INFO(out.message);
  REQUIRE(out.status == CompileOutcome::Status::Ok);
  Kernel k = Kernel::load(so);
  float x[64];
  void* args[] = {x};
  CHECK(k(args) == 0);
  CHECK(x[0] == 1.0f);
  CHECK(x[63] == 64.0f);
}

TEST_CASE("system compiler: a rejected flag or source is a failure with the compiler's message") {
  SystemCompiler cc("cc");
  std::string src = scratch("bad.c"), so = scratch("bad.so");
  std::ofstream(src) << kSource;
  std::vector<std::string> flags = kFlags;
  flags.push_back("-fno-such-flag-at-all");
  CompileOutcome bad_flag = cc.compile({src, so, flags, 30});
  CHECK(bad_flag.status == CompileOutcome::Status::Failed);
  CHECK(bad_flag.message.find("no-such-flag-at-all") != std::string::npos);

  std::ofstream(src) << "int32_t mrd_entry(void* const* args) { return }\n";
  CompileOutcome bad_src = cc.compile({src, so, kFlags, 30});
  CHECK(bad_src.status == CompileOutcome::Status::Failed);
  CHECK(bad_src.message.find("error") != std::string::npos);
}

TEST_CASE("system compiler: a missing compiler is a failure, not an exception") {
  SystemCompiler cc("/nonexistent/cc-xyz");
  CompileOutcome out = cc.compile({scratch("x.c"), scratch("x.so"), kFlags, 30});
  CHECK(out.status == CompileOutcome::Status::Failed);
  CHECK(out.message.find("not found") != std::string::npos);
}

TEST_CASE("system compiler: a build past its timeout is killed and reported") {
  SystemCompiler cc("cc");
  std::string src = scratch("slow.c"), so = scratch("slow.so");
  std::ofstream(src) << kSource;
  mrd::testing::ScopedTmpdir compiler_tmp("mrd-cc-test-tmp");  // what the killed cc leaves
  CompileOutcome out = cc.compile({src, so, kFlags, 0.001});
  CHECK(out.status == CompileOutcome::Status::TimedOut);
  CHECK(out.message.find("timeout") != std::string::npos);
}

TEST_CASE("run_process: captures output and exit codes") {
  ProcessOutcome ok = run_process("/bin/sh", {"-c", "echo out; echo err >&2; exit 3"}, 10);
  CHECK(ok.launched);
  CHECK(ok.exit_code == 3);
  CHECK(ok.output.find("out") != std::string::npos);
  CHECK(ok.output.find("err") != std::string::npos);
  ProcessOutcome slow = run_process("/bin/sh", {"-c", "sleep 30"}, 0.05);
  CHECK(slow.timed_out);
}

// warm_up_llvm: it builds its built-in candidate through LLVM for an LLVM target, leaves nothing
// in $TMPDIR, does nothing for the C backend and reports a target LLVM cannot build for.
#include "common/measure/compiler_warm_up.h"

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <optional>
#include <string>

#include "tests/support/temp_dir.h"

using namespace mrd;

namespace {

/// Points $TMPDIR at a fresh directory for the scope, then puts it back.
struct ScopedTmpdir {
  mrd::testing::TempDir dir{"mrd-warm-up-test"};
  std::optional<std::string> old;
  ScopedTmpdir() {
    if (const char* t = ::getenv("TMPDIR")) old = t;
    ::setenv("TMPDIR", dir.path.c_str(), 1);
  }
  ~ScopedTmpdir() {
    if (old)
      ::setenv("TMPDIR", old->c_str(), 1);
    else
      ::unsetenv("TMPDIR");
  }
  bool empty() const { return std::filesystem::is_empty(dir.path); }
};

}  // namespace

TEST_CASE("warm_up_llvm builds for LLVM targets and leaves no files", "[measure][warm_up]") {
  ScopedTmpdir tmp;
  CHECK(measure::warm_up_llvm("llvm -keys=cpu -mcpu=znver3") > 0);
  CHECK(measure::warm_up_llvm("llvm") > 0);
  CHECK(tmp.empty());
}

TEST_CASE("warm_up_llvm does nothing for the C backend", "[measure][warm_up]") {
  ScopedTmpdir tmp;
  CHECK(measure::warm_up_llvm("c") == 0);
  CHECK(tmp.empty());
}

TEST_CASE("warm_up_llvm reports a target it cannot build for", "[measure][warm_up]") {
  ScopedTmpdir tmp;
  CHECK(measure::warm_up_llvm("llvm -mtriple=nonsense-unknown-none") < 0);
  CHECK(tmp.empty());
}

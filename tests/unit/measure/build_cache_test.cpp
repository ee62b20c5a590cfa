// The compile cache through a fake compiler that counts its invocations.
#include <catch2/catch.hpp>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "common/measure/build_cache.h"
#include "tests/support/temp_dir.h"

using namespace mrd::measure;
namespace fs = std::filesystem;

namespace {

class FakeCompiler : public Compiler {
 public:
  int invocations = 0;
  CompileOutcome next;
  std::string identity() const override { return "fake-cc 1.0"; }
  CompileOutcome compile(const CompileRequest& r) override {
    ++invocations;
    if (next.status == CompileOutcome::Status::Ok) {
      std::ifstream in(r.source_path);
      std::string src((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      std::ofstream(r.output_path) << "built:" << src;
    }
    return next;
  }
};

/// A cache directory `name` not yet made, in this process's scratch directory.
std::string scratch_dir(const std::string& name) {
  static const mrd::testing::TempDir dir("mrd-cache-test");
  fs::path d = dir.path / name;
  fs::remove_all(d);
  return d.string();
}

}  // namespace

TEST_CASE("build cache: an identical candidate is compiled once") {
  FakeCompiler cc;
  BuildCache cache(scratch_dir("same"), cc);
  CachedBuild a = cache.get_or_build("int x;", {"-O3"}, 10);
  REQUIRE(a.outcome.status == CompileOutcome::Status::Ok);
  CHECK_FALSE(a.cache_hit);
  CachedBuild b = cache.get_or_build("int x;", {"-O3"}, 10);
  CHECK(b.cache_hit);
  CHECK(b.artifact == a.artifact);
  CHECK(cc.invocations == 1);
  std::ifstream in(b.artifact);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(content == "built:int x;");
}

TEST_CASE("build cache: a changed flag, source or compiler is a miss") {
  FakeCompiler cc;
  std::string dir = scratch_dir("miss");
  BuildCache cache(dir, cc);
  cache.get_or_build("int x;", {"-O3"}, 10);
  CHECK_FALSE(cache.get_or_build("int x;", {"-O2"}, 10).cache_hit);
  CHECK_FALSE(cache.get_or_build("int y;", {"-O3"}, 10).cache_hit);
  CHECK_FALSE(cache.get_or_build("int x;", {"-O3", "-g"}, 10).cache_hit);
  // Flag boundaries matter: {"-O3 -g"} is not {"-O3", "-g"}.
  CHECK_FALSE(cache.get_or_build("int x;", {"-O3 -g"}, 10).cache_hit);
  CHECK(cc.invocations == 5);
  struct OtherCompiler : FakeCompiler {
    std::string identity() const override { return "fake-cc 2.0"; }
  } cc2;
  BuildCache cache2(dir, cc2);
  CHECK_FALSE(cache2.get_or_build("int x;", {"-O3"}, 10).cache_hit);
}

TEST_CASE("build cache: failures are not cached and leave no files behind") {
  FakeCompiler cc;
  std::string dir = scratch_dir("fail");
  BuildCache cache(dir, cc);
  cc.next = {CompileOutcome::Status::Failed, "error: expected ';'"};
  CachedBuild a = cache.get_or_build("int x", {}, 10);
  CHECK(a.outcome.status == CompileOutcome::Status::Failed);
  CHECK(a.outcome.message == "error: expected ';'");
  CHECK(a.artifact.empty());
  cc.next = {};
  CHECK_FALSE(cache.get_or_build("int x", {}, 10).cache_hit);
  CHECK(cc.invocations == 2);
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++entries;
    CHECK(e.path().extension() == ".so");  // no temporary directory is left
  }
  CHECK(entries == 1);
}

TEST_CASE("build cache: the directory is created private") {
  FakeCompiler cc;
  std::string dir = scratch_dir("private") + "/nested/cache";
  BuildCache cache(dir, cc);
  cache.get_or_build("int x;", {}, 10);
  struct stat st {};
  REQUIRE(::stat(dir.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
}

TEST_CASE("build cache: a directory others may write to is refused") {
  FakeCompiler cc;
  std::string dir = scratch_dir("shared");
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::all);  // 0777
  BuildCache cache(dir, cc);
  CachedBuild b = cache.get_or_build("int x;", {}, 10);
  CHECK(b.outcome.status == CompileOutcome::Status::Failed);
  CHECK(b.outcome.message.find("not private") != std::string::npos);
  CHECK(cc.invocations == 0);
}

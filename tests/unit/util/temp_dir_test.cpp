// The tests' scratch directory (tests/support/temp_dir.h): a new private directory each time,
// removed with everything in it, and left alone when a forked child destroys its copy.
#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using mrd::testing::TempDir;

TEST_CASE("temp dir: a new private directory each time, removed with its contents") {
  fs::path first;
  {
    TempDir a("mrd-tempdir-test"), b("mrd-tempdir-test");
    CHECK(a.path != b.path);
    CHECK(a.path.parent_path() == fs::temp_directory_path());
    CHECK(a.path.filename().string().rfind("mrd-tempdir-test-", 0) == 0);
    struct stat st {};
    REQUIRE(::stat(a.path.c_str(), &st) == 0);
    CHECK(S_ISDIR(st.st_mode));
    CHECK((st.st_mode & 0777) == 0700);
    fs::create_directories(a.path / "sub" / "deeper");
    std::ofstream(a.file("sub/deeper/file")) << "x";
    CHECK(fs::exists(a.file("sub/deeper/file")));
    first = a.path;
  }
  CHECK_FALSE(fs::exists(first));
}

TEST_CASE("temp dir: a forked child's destructor leaves the directory to its maker") {
  TempDir dir("mrd-tempdir-test");
  std::ofstream(dir.file("file")) << "x";
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    dir.~TempDir();  // as exit() in a child destroys a static TempDir made before the fork
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(fs::exists(dir.file("file")));
}

// A test's scratch directory: made with mkdtemp under $TMPDIR (else /tmp), so that its name is
// new on every run and never collides with another process's, and removed with everything in
// it at destruction. A directory shared by the tests of one process (a compile cache, a
// helper's scratch files) is a function-local static TempDir: removed when the process exits.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>

namespace mrd::testing {

struct TempDir {
  std::filesystem::path path;

  /// `prefix` starts the directory's name and says which tests made it.
  explicit TempDir(const std::string& prefix = "measurerd-test") {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr)
      throw std::system_error(errno, std::generic_category(), "mkdtemp " + tmpl);
    path = tmpl;
  }
  ~TempDir() {
    // A forked child that exits normally runs static destructors too: only the process that
    // made the directory removes it.
    if (::getpid() != owner_) return;
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// The path of `name` in the directory.
  std::string file(const std::string& name) const { return (path / name).string(); }

 private:
  pid_t owner_ = ::getpid();
};

}  // namespace mrd::testing

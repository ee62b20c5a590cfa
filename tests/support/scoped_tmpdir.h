// $TMPDIR pointed at a fresh TempDir for one scope, for tests that kill a compiler past its
// timeout: a killed compiler cannot remove its temporary files (cc*.s), so they land in this
// directory and go with it, not in /tmp. As the worker does for the compilers it runs (its
// private --temp-dir). The previous TMPDIR comes back at the end of the scope. A TempDir made
// while one is in force is made inside it: make the test's own directories first.
#pragma once

#include <stdlib.h>

#include <optional>
#include <string>

#include "tests/support/temp_dir.h"

namespace mrd::testing {

class ScopedTmpdir {
 public:
  explicit ScopedTmpdir(const std::string& prefix) : dir_(prefix) {
    if (const char* t = std::getenv("TMPDIR")) saved_ = t;
    ::setenv("TMPDIR", dir_.path.c_str(), 1);
  }
  ~ScopedTmpdir() {
    if (saved_) ::setenv("TMPDIR", saved_->c_str(), 1);
    else ::unsetenv("TMPDIR");
  }
  ScopedTmpdir(const ScopedTmpdir&) = delete;
  ScopedTmpdir& operator=(const ScopedTmpdir&) = delete;

  const TempDir& dir() const { return dir_; }

 private:
  TempDir dir_;  // made before TMPDIR changes, removed after it is restored
  std::optional<std::string> saved_;
};

}  // namespace mrd::testing

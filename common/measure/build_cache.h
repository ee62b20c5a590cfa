// The content-addressed compile cache: an artifact (a shared object, or an object file for the
// JIT) is stored under the SHA-256 of (source, compiler identity, flags), so an identical candidate is compiled once and a changed
// flag or compiler is a miss. Publication is atomic (build in a private temporary directory,
// then rename), so workers sharing the directory never load a half-written file. The cache
// directory is created with mode 0700, and a directory that is not this user's or that group
// or others may write to is refused (its artifacts get loaded into this process).
#pragma once

#include <string>
#include <vector>

#include "common/measure/compiler.h"

namespace mrd::measure {

struct CachedBuild {
  CompileOutcome outcome;
  std::string artifact;  ///< path of the artifact when outcome is Ok
  bool cache_hit = false;
};

class BuildCache {
 public:
  /// Does not touch the disk; directories are made on first use.
  BuildCache(std::string dir, Compiler& compiler);

  /// The artifact for `source` built with `flags`, from the cache or freshly compiled.
  /// Never throws: filesystem failures come back as a Failed outcome.
  CachedBuild get_or_build(const std::string& source, const std::vector<std::string>& flags,
                           double timeout_seconds);

  /// The cache key (hex SHA-256) of a build.
  std::string key(const std::string& source, const std::vector<std::string>& flags) const;

  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  Compiler& compiler_;
  std::string identity_;
};

/// `$XDG_CACHE_HOME/measurerd`, else `$HOME/.cache/measurerd`, else a directory under /tmp
/// named after the user id.
std::string default_cache_dir();

}  // namespace mrd::measure

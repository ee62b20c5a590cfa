// Where workers leave temporary files, and their removal. Each worker gets a private
// directory `<cache>/worker-tmp/<daemon pid>-<serial>` (mode 0700) that is its compiler's
// TMPDIR, so a compiler killed at the build timeout leaves its temporaries there and not in
// /tmp. Once a worker is gone, its directory and the compile cache's partial build
// directories of that worker (`<cache>/tmp-<worker pid>-*`) are removed. At start, the
// leftovers of workers whose daemon or process no longer exists are removed too.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace mrd::daemon {

/// Creates (0700) and returns the private temporary directory of the worker numbered
/// `serial` by this daemon. Throws std::filesystem::filesystem_error when it cannot.
std::string make_worker_temp_dir(const std::string& cache_dir, uint64_t serial);

/// Removes `temp_dir` and the compile cache's partial build directories of worker `pid`.
/// Call only once that process has ended. Never throws.
void remove_worker_leftovers(const std::string& cache_dir, const std::string& temp_dir, pid_t pid);

/// Removes the leftovers of daemons and workers that no longer run. Never throws.
void remove_stale_leftovers(const std::string& cache_dir);

}  // namespace mrd::daemon

// What a stopped daemon must not leave behind: processes (workers, compilers) whose command
// line or working directory lies in the soak's private directory, and temporary files —
// anything in the TMPDIR the daemon was started with, anything in the build cache that is not
// a finished entry (a `<sha256>.so` or `<sha256>.o` file; a build in progress lives in a `tmp-*` directory),
// and anything inside the workers' scratch root `<cache>/worker-tmp` (each worker's private
// compiler TMPDIR, to be removed when that worker is gone).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace mrd::soak {

struct StrayProcess {
  pid_t pid;
  std::string cmdline;
};

/// Processes other than this one that refer to `dir`. Processes on their way out get up to
/// `settle_seconds` to disappear before they count.
std::vector<StrayProcess> stray_processes(const std::string& dir, double settle_seconds);

/// Processes that refer to `dir` while the daemon runs but are not among its descendants: what
/// a worker started and the daemon lost track of, e.g. a compiler left running after its
/// worker died.
std::vector<StrayProcess> orphaned_processes(const std::string& dir, pid_t daemon);

/// Sends SIGKILL to each (after they were counted), so that the soak cleans up after itself.
void kill_strays(const std::vector<StrayProcess>& strays);

/// Paths of temporary files left: every entry under `tmp_dir`, every entry of `cache_dir` that
/// is not a finished cache entry (with what is inside it), every entry under the scratch root.
std::vector<std::string> temp_files_left(const std::string& tmp_dir, const std::string& cache_dir);

}  // namespace mrd::soak

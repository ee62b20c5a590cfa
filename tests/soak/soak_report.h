// The soak's verdict and its one line of figures, from what the clients saw and what was
// found after the daemon stopped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tests/soak/client_runner.h"

namespace mrd::soak {

struct SoakFigures {
  Tally tally;
  uint64_t kills = 0;  ///< SIGKILLs sent to workers
  bool daemon_crashed = false;
  bool drained = true;  ///< every client finished within the time bounds
  long long worker_restarts = 0;
  size_t stray_processes = 0;
  /// Processes a killed worker had started that outlived it, no longer the daemon's.
  size_t orphans_seen = 0;
  size_t temp_files_left = 0;
  long fds_before = -1, fds_after = -1;  ///< -1: not measured
  long rss_kb_before = -1, rss_kb_after = -1;
  bool faults = false;  ///< the daemon ran with --test-faults
  double seconds = 0;
};

/// Results blamed on a SIGKILL beyond the number of kills made are wrong codes: moves them
/// there, with an explanation.
void reconcile_kills(Tally& tally, uint64_t kills);

/// Nothing lost, no wrong code, no daemon crash, no stray process, no temp file left, and
/// every client finished.
bool soak_passed(const SoakFigures& f);

/// "soak: inputs .. results .. cut .. lost .. wrong_codes .. killed K/N daemon_crashes ..
/// worker_restarts .. stray_processes .. daemon_fds A->B daemon_rss_kb A->B temp_files_left ..
/// unsent .. faults on|off seconds .."
std::string figures_line(const SoakFigures& f);

}  // namespace mrd::soak

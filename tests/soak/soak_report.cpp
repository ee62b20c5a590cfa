#include "tests/soak/soak_report.h"

#include <cstdio>

#include "common/util/error.h"

namespace mrd::soak {

void reconcile_kills(Tally& tally, uint64_t kills) {
  if (tally.killed <= kills) return;
  tally.wrong += tally.killed - kills;
  tally.problems.push_back(str_cat("wrong: ", tally.killed, " results blame a SIGKILL but only ",
                                   kills, " kills were made"));
  for (const auto& d : tally.killed_details) tally.problems.push_back("  killed: " + d);
}

bool soak_passed(const SoakFigures& f) {
  return f.tally.lost == 0 && f.tally.wrong == 0 && !f.daemon_crashed && f.stray_processes == 0 &&
         f.temp_files_left == 0 && f.drained;
}

std::string figures_line(const SoakFigures& f) {
  const Tally& t = f.tally;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f", f.seconds);
  return str_cat("soak: inputs ", t.submitted, " results ", t.received, " cut ", t.cut, " lost ",
                 t.lost, " wrong_codes ", t.wrong, " killed ", t.killed, "/", f.kills,
                 " daemon_crashes ", f.daemon_crashed ? 1 : 0, " worker_restarts ",
                 f.worker_restarts, " stray_processes ", f.stray_processes, " orphans_seen ",
                 f.orphans_seen, " daemon_fds ", f.fds_before, "->", f.fds_after, " daemon_rss_kb ",
                 f.rss_kb_before, "->", f.rss_kb_after, " temp_files_left ", f.temp_files_left,
                 " unsent ", t.unsent, " faults ", f.faults ? "on" : "off", " seconds ", seconds);
}

}  // namespace mrd::soak

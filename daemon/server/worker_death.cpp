#include "daemon/server/worker_death.h"

#include <sys/wait.h>

#include <cstring>

#include "common/util/error.h"

namespace mrd::daemon {

using measure::MeasureErrorNo;

std::string describe_exit_status(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return str_cat("killed by signal ", sig, " (", strsignal(sig), ")");
  }
  if (WIFEXITED(status)) return str_cat("exited with status ", WEXITSTATUS(status));
  return "ended";
}

measure::MeasureResult death_result(Phase phase, bool timed_out, int pid, const std::string& how,
                                    double now) {
  measure::MeasureResult r;
  r.timestamp = now;
  bool build = phase == Phase::Build;
  if (timed_out) {
    r.error_no = build ? MeasureErrorNo::BuildTimeout : MeasureErrorNo::RunTimeout;
    r.error_msg = build ? "build timed out; worker killed" : "run timed out; worker killed";
  } else {
    r.error_no = build ? MeasureErrorNo::CompileHost : MeasureErrorNo::RuntimeDevice;
    r.error_msg = str_cat("worker ", pid, " ", how, " while ", build ? "building" : "running");
  }
  return r;
}

}  // namespace mrd::daemon

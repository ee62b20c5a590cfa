#include "daemon/server/worker_death.h"

#include <signal.h>

#include <catch2/catch.hpp>

using namespace mrd;
using namespace mrd::daemon;
using measure::MeasureErrorNo;

TEST_CASE("worker death: the wait status in words") {
  CHECK(describe_exit_status(SIGSEGV) == "killed by signal 11 (Segmentation fault)");
  CHECK(describe_exit_status(3 << 8) == "exited with status 3");
}

TEST_CASE("worker death: the job's result by phase and cause") {
  auto r = death_result(Phase::Build, true, 42, "", 5.0);
  CHECK(r.error_no == MeasureErrorNo::BuildTimeout);
  CHECK(r.error_msg == "build timed out; worker killed");
  CHECK(r.timestamp == 5.0);
  r = death_result(Phase::Run, true, 42, "", 5.0);
  CHECK(r.error_no == MeasureErrorNo::RunTimeout);
  r = death_result(Phase::Build, false, 42, describe_exit_status(SIGKILL), 5.0);
  CHECK(r.error_no == MeasureErrorNo::CompileHost);
  CHECK(r.error_msg == "worker 42 killed by signal 9 (Killed) while building");
  r = death_result(Phase::Run, false, 42, "protocol error: bad magic", 5.0);
  CHECK(r.error_no == MeasureErrorNo::RuntimeDevice);
  CHECK(r.error_msg == "worker 42 protocol error: bad magic while running");
}

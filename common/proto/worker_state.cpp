#include "common/proto/messages.h"

namespace mrd::proto {

std::string_view worker_state_name(WorkerState s) {
  switch (s) {
    case WorkerState::Starting:
      return "starting";
    case WorkerState::Idle:
      return "idle";
    case WorkerState::Building:
      return "building";
    case WorkerState::Running:
      return "running";
  }
  return "unknown";
}

}  // namespace mrd::proto

#include "daemon/server/worker_link.h"

#include "common/proto/codec.h"
#include "common/util/error.h"

namespace mrd::daemon {

using proto::MessageType;
using proto::WorkerState;

std::string WorkerLink::start_job(uint64_t job_id, const Job& job) {
  MRD_CHECK(state_ == WorkerState::Idle && !broken_, "job started on a worker that is not idle");
  job_id_ = job_id;
  phase_ = job.phase;
  state_ = job.phase == Phase::Build ? WorkerState::Building : WorkerState::Running;
  if (job.phase == Phase::Build) {
    proto::BuildJob b;
    b.job_id = job_id;
    b.task = *job.task;
    b.steps = job.steps;
    b.options = job.options;
    return proto::encode(b);
  }
  proto::RunJob r;
  r.job_id = job_id;
  r.task = *job.task;
  r.steps = job.steps;
  r.artifact = job.artifact;
  r.options = job.options;
  r.best_cost = job.best_cost;
  return proto::encode(r);
}

WorkerEvent WorkerLink::broken_event(std::string why) {
  broken_ = true;
  WorkerEvent e;
  e.kind = WorkerEvent::Kind::Broken;
  e.why = "protocol error: " + std::move(why);
  return e;
}

std::vector<WorkerEvent> WorkerLink::feed(std::string_view bytes) {
  std::vector<WorkerEvent> out;
  if (broken_) return out;
  decoder_.feed(bytes);
  while (auto f = decoder_.next()) {
    try {
      auto type = static_cast<MessageType>(f->type);
      if (type == MessageType::WorkerReady && state_ == WorkerState::Starting) {
        proto::decode<proto::WorkerReady>(f->body);
        state_ = WorkerState::Idle;
        out.push_back(WorkerEvent{});
      } else if (type == MessageType::JobResult &&
                 (state_ == WorkerState::Building || state_ == WorkerState::Running)) {
        auto r = proto::decode<proto::JobResult>(f->body);
        if (r.job_id != job_id_)
          throw proto::ProtocolError(proto::ErrorCode::UnexpectedMessage,
                                     str_cat("result for job ", r.job_id, " while job ", job_id_,
                                             " is out"));
        state_ = WorkerState::Idle;
        WorkerEvent e;
        e.kind = WorkerEvent::Kind::Result;
        e.outcome = JobOutcome{std::move(r.result), std::move(r.artifact)};
        e.retire = r.retire;
        out.push_back(std::move(e));
      } else {
        throw proto::ProtocolError(
            proto::ErrorCode::UnexpectedMessage,
            str_cat("unexpected message type ", f->type, " while ",
                    proto::worker_state_name(state_)));
      }
    } catch (const std::exception& e) {
      out.push_back(broken_event(e.what()));
      return out;
    }
  }
  if (decoder_.failure()) out.push_back(broken_event(decoder_.failure()->message));
  return out;
}

}  // namespace mrd::daemon

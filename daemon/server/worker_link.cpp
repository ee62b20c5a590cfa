#include "daemon/server/worker_link.h"

#include "common/proto/codec.h"
#include "common/util/error.h"

namespace mrd::daemon {

using proto::MessageType;
using proto::WorkerState;

std::string WorkerLink::start_job(uint64_t job_id, const Job& job) {
  MRD_CHECK(state_ == WorkerState::Idle && !broken_, "job started on a worker that is not idle");
  MRD_CHECK(job.task, "job without a task");
  job_id_ = job_id;
  phase_ = job.phase;
  state_ = job.phase == Phase::Build ? WorkerState::Building : WorkerState::Running;
  job_ = job;
  // In the record: the worker keeps it too (it applies the same limits to the same tasks in
  // the same order).
  bool known = known_tasks_.find(job.task->digest) != nullptr;
  return job_frame(!known);
}

std::string WorkerLink::job_frame(bool with_task) {
  const TaskBytes& task = *job_.task;
  job_had_task_ = with_task;
  proto::TaskRef ref;
  ref.digest = task.digest;
  if (with_task) {
    ref.has_bytes = true;
    ref.bytes = task.bytes;
    known_tasks_.insert(task.digest, Known{}, task.digest.size);
    task_bytes_sent_ += task.bytes.size();
  }
  if (job_.phase == Phase::Build) {
    proto::BuildJob b;
    b.job_id = job_id_;
    b.task = std::move(ref);
    b.steps = job_.steps;
    b.options = job_.options;
    return proto::encode(b);
  }
  proto::RunJob r;
  r.job_id = job_id_;
  r.task = std::move(ref);
  r.steps = job_.steps;
  r.artifact = job_.artifact;
  r.options = job_.options;
  r.best_cost = job_.best_cost;
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
        job_ = Job{};
        out.push_back(std::move(e));
      } else if (type == MessageType::TaskMissing &&
                 (state_ == WorkerState::Building || state_ == WorkerState::Running)) {
        auto m = proto::decode<proto::TaskMissing>(f->body);
        if (m.job_id != job_id_ || m.digest != job_.task->digest)
          throw proto::ProtocolError(proto::ErrorCode::UnexpectedMessage,
                                     str_cat("task missing for job ", m.job_id, " while job ",
                                             job_id_, " is out with another task"));
        if (job_had_task_)
          throw proto::ProtocolError(proto::ErrorCode::UnexpectedMessage,
                                     str_cat("task missing for job ", m.job_id,
                                             " although its frame carried the task"));
        known_tasks_.erase(m.digest);
        ++task_resends_;
        WorkerEvent e;
        e.kind = WorkerEvent::Kind::Resend;
        e.frame = job_frame(true);
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

#include "daemon/server/worker_link.h"

#include <catch2/catch.hpp>

#include "common/proto/codec.h"

using namespace mrd;
using namespace mrd::daemon;
using proto::WorkerState;
using Kind = WorkerEvent::Kind;

namespace {

Job build_job(const std::string& steps,
              std::shared_ptr<const TaskBytes> task = make_task_bytes("task bytes")) {
  Job j;
  j.phase = Phase::Build;
  j.task = std::move(task);
  j.steps = steps;
  return j;
}

proto::TaskRef task_of_frame(const std::string& frame) {
  proto::FrameDecoder d;
  d.feed(frame);
  auto f = d.next();
  REQUIRE(f);
  if (f->type == uint16_t(proto::MessageType::RunJob))
    return proto::decode<proto::RunJob>(f->body).task;
  REQUIRE(f->type == uint16_t(proto::MessageType::BuildJob));
  return proto::decode<proto::BuildJob>(f->body).task;
}

std::string missing_frame(uint64_t job_id, const proto::TaskDigest& d) {
  return proto::encode(proto::TaskMissing{job_id, d});
}

std::string result_frame(uint64_t job_id, const std::string& artifact = "a.so",
                         bool retire = false) {
  proto::JobResult r;
  r.job_id = job_id;
  r.artifact = artifact;
  r.retire = retire;
  r.result.build_seconds = 0.5;
  return proto::encode(r);
}

std::vector<WorkerEvent> feed_bytewise(WorkerLink& link, const std::string& bytes) {
  std::vector<WorkerEvent> all;
  for (char c : bytes)
    for (auto& e : link.feed(std::string_view(&c, 1))) all.push_back(std::move(e));
  return all;
}

}  // namespace

TEST_CASE("worker link: ready, a job, its result, in any split") {
  WorkerLink link;
  CHECK(link.state() == WorkerState::Starting);
  auto events = feed_bytewise(link, proto::encode(proto::WorkerReady{}));
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == Kind::Ready);
  CHECK(link.state() == WorkerState::Idle);

  std::string frame = link.start_job(7, build_job("[]"));
  CHECK(link.state() == WorkerState::Building);
  CHECK(link.job_id() == 7);
  proto::FrameDecoder d;
  d.feed(frame);
  auto f = d.next();
  REQUIRE(f);
  REQUIRE(f->type == uint16_t(proto::MessageType::BuildJob));
  auto b = proto::decode<proto::BuildJob>(f->body);
  CHECK(b.job_id == 7);
  CHECK(b.task.has_bytes);
  CHECK(b.task.bytes == "task bytes");
  CHECK(b.task.digest == proto::task_digest("task bytes"));

  events = feed_bytewise(link, result_frame(7, "x.so", true));
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == Kind::Result);
  CHECK(events[0].outcome.artifact == "x.so");
  CHECK(events[0].outcome.result.build_seconds == 0.5);
  CHECK(events[0].retire);
  CHECK(link.state() == WorkerState::Idle);

  Job run = build_job("[]");
  run.phase = Phase::Run;
  run.artifact = "x.so";
  link.start_job(8, run);
  CHECK(link.state() == WorkerState::Running);
  CHECK(link.phase() == Phase::Run);
}

TEST_CASE("worker link: a frame the state does not expect breaks it for good") {
  auto broken_by = [](const std::string& bytes, bool ready_first, bool job_out) {
    WorkerLink link;
    if (ready_first) link.feed(proto::encode(proto::WorkerReady{}));
    if (job_out) link.start_job(3, build_job("[]"));
    auto events = link.feed(bytes);
    REQUIRE(!events.empty());
    CHECK(events.back().kind == Kind::Broken);
    CHECK(link.broken());
    CHECK(link.feed(proto::encode(proto::WorkerReady{})).empty());  // nothing more
    return events.back().why;
  };
  CHECK(broken_by(result_frame(1), false, false).find("unexpected message") != std::string::npos);
  CHECK(broken_by(proto::encode(proto::WorkerReady{}), true, false).find("unexpected") !=
        std::string::npos);
  CHECK(broken_by(result_frame(4), true, true).find("result for job 4 while job 3") !=
        std::string::npos);
  CHECK(broken_by(result_frame(3), true, false).find("unexpected") != std::string::npos);
  CHECK(broken_by("garbage bytes here", false, false).find("protocol error") != std::string::npos);
  CHECK(broken_by(proto::make_frame(uint16_t(proto::MessageType::JobResult), "\x01"), true, true)
            .find("protocol error") != std::string::npos);
}

TEST_CASE("worker link: several frames in one read give several events") {
  WorkerLink link;
  auto events = link.feed(proto::encode(proto::WorkerReady{}));
  link.start_job(1, build_job("[]"));
  std::string two = result_frame(1);
  events = link.feed(two.substr(0, 5));
  CHECK(events.empty());
  CHECK(link.mid_frame());
  events = link.feed(two.substr(5));
  REQUIRE(events.size() == 1);
  CHECK_FALSE(link.mid_frame());
}

TEST_CASE("worker link: the jobs of one task carry its bytes once") {
  auto task = make_task_bytes(std::string(100000, 't'));
  WorkerLink link;
  link.feed(proto::encode(proto::WorkerReady{}));
  size_t frame_bytes = 0;
  for (uint64_t id = 1; id <= 10; ++id) {
    Job job = build_job("[]", task);
    if (id % 2 == 0) {
      job.phase = Phase::Run;
      job.artifact = "x.so";
    }
    std::string frame = link.start_job(id, job);
    frame_bytes += frame.size();
    CHECK(task_of_frame(frame).has_bytes == (id == 1));
    CHECK(task_of_frame(frame).digest == task->digest);
    REQUIRE(link.feed(result_frame(id)).size() == 1);
  }
  CHECK(link.task_bytes_sent() == task->bytes.size());
  CHECK(frame_bytes < task->bytes.size() + 10 * 1000);
}

TEST_CASE("worker link: a worker without the task gets the job again with it") {
  auto task = make_task_bytes("the task");
  WorkerLink link;
  link.feed(proto::encode(proto::WorkerReady{}));
  link.start_job(1, build_job("[]", task));
  link.feed(result_frame(1));
  std::string by_digest = link.start_job(2, build_job("[[\"SP\"]]", task));
  REQUIRE_FALSE(task_of_frame(by_digest).has_bytes);

  // The worker lost it (evicted, say): the same job again, with the bytes.
  auto events = link.feed(missing_frame(2, task->digest));
  REQUIRE(events.size() == 1);
  REQUIRE(events[0].kind == Kind::Resend);
  CHECK(link.state() == WorkerState::Building);
  CHECK(link.job_id() == 2);
  auto again = task_of_frame(events[0].frame);
  CHECK(again.has_bytes);
  CHECK(again.bytes == "the task");
  proto::FrameDecoder d;
  d.feed(events[0].frame);
  CHECK(proto::decode<proto::BuildJob>(d.next()->body).steps == "[[\"SP\"]]");
  CHECK(link.task_resends() == 1);
  REQUIRE(link.feed(result_frame(2)).at(0).kind == Kind::Result);

  // Missing although the frame carried it, or for another job: the worker is broken.
  std::string with_bytes = link.start_job(3, build_job("[]", make_task_bytes("other")));
  REQUIRE(task_of_frame(with_bytes).has_bytes);
  events = link.feed(missing_frame(3, proto::task_digest("other")));
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == Kind::Broken);
  CHECK(events[0].why.find("although its frame carried the task") != std::string::npos);

  WorkerLink other;
  other.feed(proto::encode(proto::WorkerReady{}));
  other.start_job(5, build_job("[]", task));
  CHECK(other.feed(missing_frame(4, task->digest)).at(0).kind == Kind::Broken);
  CHECK(other.feed(missing_frame(5, task->digest)).empty());  // broken for good
  WorkerLink idle;
  idle.feed(proto::encode(proto::WorkerReady{}));
  CHECK(idle.feed(missing_frame(1, task->digest)).at(0).kind == Kind::Broken);
}

TEST_CASE("worker link: its record of the worker's tasks has the worker cache's limits") {
  auto send = [](WorkerLink& link, uint64_t id, const std::shared_ptr<const TaskBytes>& t) {
    bool with_bytes = task_of_frame(link.start_job(id, build_job("[]", t))).has_bytes;
    link.feed(result_frame(id));
    return with_bytes;
  };
  std::vector<std::shared_ptr<const TaskBytes>> tasks;
  for (size_t i = 0; i <= proto::kWorkerTaskCacheEntries; ++i)
    tasks.push_back(make_task_bytes("task " + std::to_string(i)));

  WorkerLink link;
  link.feed(proto::encode(proto::WorkerReady{}));
  uint64_t id = 1;
  for (const auto& t : tasks) CHECK(send(link, id++, t));
  CHECK(send(link, id++, tasks[0]));  // the 17th dropped the least recently used
  CHECK_FALSE(send(link, id++, tasks.back()));

  // By bytes: 100 kB kept, two 60 kB tasks do not fit together.
  WorkerLink small(proto::kDefaultMaxBody, 100000);
  small.feed(proto::encode(proto::WorkerReady{}));
  auto a = make_task_bytes(std::string(60000, 'a')), b = make_task_bytes(std::string(60000, 'b'));
  CHECK(send(small, 1, a));
  CHECK_FALSE(send(small, 2, a));
  CHECK(send(small, 3, b));
  CHECK(send(small, 4, a));
}

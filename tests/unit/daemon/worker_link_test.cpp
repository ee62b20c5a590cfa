#include "daemon/server/worker_link.h"

#include <catch2/catch.hpp>

#include "common/proto/codec.h"

using namespace mrd;
using namespace mrd::daemon;
using proto::WorkerState;
using Kind = WorkerEvent::Kind;

namespace {

Job build_job(const std::string& steps) {
  Job j;
  j.phase = Phase::Build;
  j.task = std::make_shared<const std::string>("task bytes");
  j.steps = steps;
  return j;
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
  CHECK(b.task == "task bytes");

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

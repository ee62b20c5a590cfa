// A hostile or careless local peer against a real daemon, with raw frames: descriptors
// exhausted, a client that sends and never reads. Each case checks that the daemon keeps its
// resources bounded and goes on serving others.
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>

#include "common/measure/task.h"
#include "common/proto/codec.h"
#include "daemon_fixture.h"
#include "raw_connection.h"

using namespace mrd;
using namespace mrd::testing;

namespace {

/// The descriptors open in process `pid` and the highest of them.
std::pair<size_t, int> open_fds(pid_t pid) {
  size_t n = 0;
  int highest = -1;
  for (const auto& e : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    ++n;
    highest = std::max(highest, std::stoi(e.path().filename().string()));
  }
  return {n, highest};
}

/// VmHWM of a process: its peak resident set, in KiB.
uint64_t peak_rss_kb(pid_t pid) {
  std::string text = file_text("/proc/" + std::to_string(pid) + "/status");
  auto at = text.find("VmHWM:");
  REQUIRE(at != std::string::npos);
  return std::stoull(text.substr(at + 6));
}

void status_round_trip(RawConnection& c) {
  REQUIRE(c.send(proto::encode(proto::StatusRequest{})));
  auto frames = c.read_until(proto::MessageType::StatusReply);
  REQUIRE(!frames.empty());
  REQUIRE(frames.back().type == uint16_t(proto::MessageType::StatusReply));
}

}  // namespace

TEST_CASE("out of descriptors, accept backs off with one warning and recovers") {
  Daemon d(1, {"--max-connections-per-uid", "100000"});
  auto first = greeted(d.socket());
  auto [count, highest] = open_fds(d.pid());
  // The daemon may open one descriptor numbered past its highest now: that one and the holes
  // below it are filled by the next connections, then every accept fails with EMFILE.
  rlimit old{};
  REQUIRE(::prlimit(d.pid(), RLIMIT_NOFILE, nullptr, &old) == 0);
  rlimit tight{rlim_t(highest + 2), old.rlim_max};
  REQUIRE(::prlimit(d.pid(), RLIMIT_NOFILE, &tight, nullptr) == 0);
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < highest + 2 - int(count); ++i) held.push_back(greeted(d.socket()));
  RawConnection pending(d.socket());  // waits in the listen backlog
  REQUIRE(pending.send(proto::encode(proto::Hello{})));
  const std::string warning = "[warning] accept: ";
  while (d.log().find(warning) == std::string::npos)
    if (!process_running(d.pid())) FAIL("measurerd ended");
  // While the descriptors stay exhausted, the daemon keeps serving its connections and says so
  // once, instead of retrying (and logging) in a loop.
  status_round_trip(*first);
  status_round_trip(*first);
  CHECK(count_of(d.log(), warning) == 1);
  // Two descriptors freed, the waiting connection is accepted and served, and one is left
  // (accept(2) fails with EMFILE at a full table even when nobody is waiting).
  first.reset();
  REQUIRE(!held.empty());
  held.pop_back();
  auto frames = pending.read_until(proto::MessageType::Welcome);
  REQUIRE(!frames.empty());
  CHECK(frames.back().type == uint16_t(proto::MessageType::Welcome));
  CHECK(d.log().find("accepting connections again") != std::string::npos);
  CHECK(count_of(d.log(), warning) == 1);
  REQUIRE(::prlimit(d.pid(), RLIMIT_NOFILE, &old, nullptr) == 0);
  held.clear();
  client::Client c(d.socket());
  CHECK(c.status().workers == 1);
}

TEST_CASE("a client that sends and never reads does not grow the daemon") {
  Daemon d(1);
  auto c = greeted(d.socket());
  // One million StatusRequests (12 MB) whose replies (about 150 MB) are never read. The daemon
  // stops reading once its unsent bytes pass the limit, so the send stalls long before the end.
  const std::string one = proto::encode(proto::StatusRequest{});
  const size_t total = 1000000;
  std::string batch;
  for (int i = 0; i < 4096; ++i) batch += one;
  timeval guard{2, 0};  // ends a stalled send; the daemon's memory is what is judged
  REQUIRE(::setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &guard, sizeof guard) == 0);
  size_t sent_bytes = 0;
  while (sent_bytes < total * one.size()) {
    size_t want = std::min(batch.size(), total * one.size() - sent_bytes);
    ssize_t n = ::send(c->fd, batch.data() + sent_bytes % batch.size(),
                       std::min(want, batch.size() - sent_bytes % batch.size()), MSG_NOSIGNAL);
    if (n <= 0) break;  // stalled: the daemon stopped reading
    sent_bytes += size_t(n);
  }
  uint64_t peak_kb = peak_rss_kb(d.pid());
  INFO("sent " << sent_bytes << " bytes; daemon peak RSS " << peak_kb << " KiB");
  CHECK(sent_bytes < total * one.size());
  CHECK(peak_kb < 64 * 1024);
  // Another client is served meanwhile.
  client::Client other(d.socket());
  CHECK(other.status().workers == 1);
  // Reading now, the client gets a reply for each whole request it sent, and the daemon reads
  // the rest of a request cut in the middle once the client finishes sending it.
  size_t whole = sent_bytes / one.size();
  size_t cut = sent_bytes % one.size();
  timeval none{0, 0};
  REQUIRE(::setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &none, sizeof none) == 0);
  size_t replies = 0;
  char buf[65536];
  bool completed_cut = cut == 0;
  while (replies < whole + (cut ? 1 : 0)) {
    if (!completed_cut && replies >= whole) {
      REQUIRE(c->send(one.substr(cut)));
      completed_cut = true;
    }
    ssize_t n = ::recv(c->fd, buf, sizeof buf, 0);
    REQUIRE(n > 0);
    c->decoder.feed(std::string_view(buf, size_t(n)));
    while (auto f = c->decoder.next()) {
      REQUIRE(f->type == uint16_t(proto::MessageType::StatusReply));
      ++replies;
    }
  }
  CHECK(replies == whole + (cut ? 1 : 0));
  CHECK(peak_rss_kb(d.pid()) < 64 * 1024);
}

TEST_CASE("a client name with newlines cannot forge log lines") {
  Daemon d(1);
  RawConnection c(d.socket());
  proto::Hello hello;
  hello.client_name = "tuner\n2026-01-01 00:00:00.000 [error] forged line\x1b[2J";
  REQUIRE(c.send(proto::encode(hello)));
  REQUIRE(c.read_until(proto::MessageType::Welcome).size() == 1);
  status_round_trip(c);  // the hello line is written by now
  std::string log = d.log();
  CHECK(log.find("\n2026-01-01 00:00:00.000 [error] forged") == std::string::npos);
  CHECK(log.find("hello from \"tuner\\n2026-01-01 00:00:00.000 [error] forged line\\x1b[2J\"") !=
        std::string::npos);
}

namespace {

std::string measure_frame(uint64_t id, size_t states) {
  proto::MeasureRequest r;
  r.request_id = id;
  r.task = measure::task_to_binary(matmul_task(16));
  r.states.assign(states, "[]");
  r.options = quick_options();
  return proto::encode(r);
}

/// Result timestamps from `frames` (MeasureResult frames only); counts RequestDone frames.
void collect(const std::vector<proto::Frame>& frames, std::vector<double>& stamps, int& done) {
  for (const auto& f : frames) {
    if (f.type == uint16_t(proto::MessageType::MeasureResult))
      stamps.push_back(proto::decode<proto::MeasureResultMsg>(f.body).result.timestamp);
    done += f.type == uint16_t(proto::MessageType::RequestDone);
  }
}

}  // namespace

TEST_CASE("a client with many requests does not starve a client with one") {
  Daemon d(1);
  auto hog = greeted(d.socket());
  const int hog_requests = 16, hog_states = 8;
  std::string batch;
  for (int i = 1; i <= hog_requests; ++i) batch += measure_frame(uint64_t(i), hog_states);
  REQUIRE(hog->send(batch + proto::encode(proto::StatusRequest{})));
  std::vector<double> hog_stamps;
  int hog_done = 0;
  collect(hog->read_until(proto::MessageType::StatusReply), hog_stamps, hog_done);  // all queued
  auto victim = greeted(d.socket());
  double submitted = std::chrono::duration<double>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  REQUIRE(victim->send(measure_frame(1, 4)));
  std::vector<double> victim_stamps;
  int victim_done = 0;
  collect(victim->read_until(proto::MessageType::RequestDone), victim_stamps, victim_done);
  REQUIRE(victim_done == 1);
  REQUIRE(victim_stamps.size() == 4);
  while (hog_done < hog_requests)
    collect(hog->read_until(proto::MessageType::RequestDone), hog_stamps, hog_done);
  REQUIRE(hog_stamps.size() == size_t(hog_requests * hog_states));
  // Between the victim's submission and its last result, the hog got about as many results as
  // the victim, plus what was already built when the victim arrived (one timing batch of 8).
  // Taking turns per request instead, the victim's 4 inputs waited behind ~16 x 4 of the hog's.
  size_t meanwhile = 0;
  for (double t : hog_stamps) meanwhile += t > submitted && t < victim_stamps.back();
  INFO("hog results while the victim waited: " << meanwhile);
  CHECK(meanwhile <= 8 + 2 * 4 + 4);
}

TEST_CASE("connections that keep arriving do not go ahead of a client already waiting") {
  Daemon d(1, {"--test-faults"});
  auto waiter = greeted(d.socket());
  std::vector<double> waiter_stamps, late_stamps;
  int waiter_done = 0, late_done = 0;
  REQUIRE(waiter->send(measure_frame(1, 1)));  // a turn of its own first, as a tuner has had
  collect(waiter->read_until(proto::MessageType::RequestDone), waiter_stamps, waiter_done);
  REQUIRE(waiter_done == 1);
  waiter_stamps.clear();
  // A later connection holds the only worker in a build until its 2 s build timeout; the
  // waiter's next request and then a request of a connection that came after both are queued.
  auto holder = greeted(d.socket());
  auto hang = quick_options();
  hang.build_timeout = 2;
  proto::MeasureRequest held;
  held.request_id = 1;
  held.task = measure::task_to_binary(function_task("fault.compiler_hang", {}));
  held.states = {"[]"};
  held.options = hang;
  // Frames of one connection are handled in order: once the reply is in, so is the request.
  auto queued = [](RawConnection& c, const std::string& request) {
    REQUIRE(c.send(request + proto::encode(proto::StatusRequest{})));
    auto frames = c.read_until(proto::MessageType::StatusReply);
    REQUIRE(frames.back().type == uint16_t(proto::MessageType::StatusReply));
    return proto::decode<proto::StatusReply>(frames.back().body);
  };
  queued(*holder, proto::encode(held));
  queued(*waiter, measure_frame(2, 1));
  auto late = greeted(d.socket());
  auto status = queued(*late, measure_frame(1, 1));
  REQUIRE(status.in_flight == 1);  // the hung build
  REQUIRE(status.queued == 2);     // the waiter's input and the late one's
  collect(waiter->read_until(proto::MessageType::RequestDone), waiter_stamps, waiter_done);
  collect(late->read_until(proto::MessageType::RequestDone), late_stamps, late_done);
  REQUIRE(waiter_stamps.size() == 1);
  REQUIRE(late_stamps.size() == 1);
  // When the worker freed, the waiter was served first: its result came before the late one's
  // (with one worker, each is built and timed before the other's build starts).
  CHECK(waiter_stamps[0] < late_stamps[0]);
}

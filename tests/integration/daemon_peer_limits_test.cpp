// The limits on what one peer may hold of a real daemon, driven with raw frames: the Hello and
// idle timeouts, the per-uid connection and request caps, the caps on per-candidate timing and
// the refusal of a NUL byte in a state.
#include <catch2/catch.hpp>
#include <memory>

#include "common/measure/task.h"
#include "common/proto/codec.h"
#include "daemon_fixture.h"
#include "raw_connection.h"

using namespace mrd;
using namespace mrd::testing;

namespace {

std::string request_frame(uint64_t id, const measure::Task& task, std::vector<std::string> states,
                          const measure::MeasureOptions& options) {
  proto::MeasureRequest r;
  r.request_id = id;
  r.task = measure::task_to_binary(task);
  r.states = std::move(states);
  r.options = options;
  return proto::encode(r);
}

/// The Error frame answering request `id`, reading until it comes (or the connection ends).
std::optional<proto::ErrorMsg> error_for(RawConnection& c, uint64_t id) {
  for (;;) {
    auto frames = c.read_until(proto::MessageType::Error);
    if (frames.empty() || frames.back().type != uint16_t(proto::MessageType::Error))
      return std::nullopt;
    auto e = proto::decode<proto::ErrorMsg>(frames.back().body);
    if (e.request_id == id) return e;
  }
}

/// Sends request `id` and returns its RequestDone, or the Error frame's code when refused.
int outcome_of(RawConnection& c, uint64_t id, const measure::MeasureOptions& options,
               std::vector<std::string> states = {"[]"}) {
  REQUIRE(c.send(request_frame(id, matmul_task(16), std::move(states), options)));
  for (;;) {
    auto frames = c.read_until(proto::MessageType::RequestDone);
    REQUIRE(!frames.empty());
    for (const auto& f : frames) {
      if (f.type == uint16_t(proto::MessageType::Error)) {
        auto e = proto::decode<proto::ErrorMsg>(f.body);
        if (e.request_id == id) return e.code;
      }
      if (f.type == uint16_t(proto::MessageType::RequestDone) &&
          proto::decode<proto::RequestDone>(f.body).request_id == id)
        return 0;
    }
  }
}

}  // namespace

TEST_CASE("a connection that sends no Hello in time is closed with TIMED_OUT") {
  Daemon d(1, {"--hello-timeout", "0.5"});
  RawConnection silent(d.socket());
  RawConnection slow(d.socket());  // a slow client: one byte of its Hello, then nothing
  REQUIRE(slow.send(proto::encode(proto::Hello{}).substr(0, 1)));
  for (RawConnection* c : {&silent, &slow}) {
    auto errors = errors_in(c->read_to_end());
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].code == uint16_t(proto::ErrorCode::TimedOut));
    CHECK(errors[0].message.find("no Hello within") != std::string::npos);
  }
  client::Client c(d.socket());  // a client that says Hello at once is served
  CHECK(c.status().workers == 1);
}

TEST_CASE("an idle connection, or one trickling a frame that never ends, is closed") {
  Daemon d(1, {"--idle-timeout", "0.5"});
  auto idle = greeted(d.socket());
  auto trickle = greeted(d.socket());
  REQUIRE(trickle->send(proto::encode(proto::StatusRequest{}).substr(0, 5)));
  for (auto* c : {idle.get(), trickle.get()}) {
    auto errors = errors_in(c->read_to_end());
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].code == uint16_t(proto::ErrorCode::TimedOut));
    CHECK(errors[0].message.find("idle for") != std::string::npos);
  }
}

TEST_CASE("a uid has at most --max-connections-per-uid connections") {
  Daemon d(1, {"--max-connections-per-uid", "3"});
  std::vector<std::unique_ptr<RawConnection>> held;
  held.push_back(greeted(d.socket()));
  // Until the daemon has seen the fixture's own connection close, it still counts.
  for (;;) {
    REQUIRE(held[0]->send(proto::encode(proto::StatusRequest{})));
    auto frames = held[0]->read_until(proto::MessageType::StatusReply);
    REQUIRE(frames.back().type == uint16_t(proto::MessageType::StatusReply));
    if (proto::decode<proto::StatusReply>(frames.back().body).clients == 1) break;
  }
  for (int i = 0; i < 2; ++i) held.push_back(greeted(d.socket()));
  {
    RawConnection extra(d.socket());
    auto errors = errors_in(extra.read_to_end());  // refused before a byte is read
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].code == uint16_t(proto::ErrorCode::TooManyConnections));
    CHECK(errors[0].message.find("--max-connections-per-uid") != std::string::npos);
  }
  // The daemon closes one of them (bad magic); once it has, a new connection is accepted.
  REQUIRE(held[0]->send("not a frame at all"));
  CHECK(held[0]->read_to_end().size() == 1);
  held.erase(held.begin());
  held.push_back(greeted(d.socket()));
  CHECK(d.log().find("already has 3 connections") != std::string::npos);
}

TEST_CASE("a uid has at most --max-requests-per-uid requests in flight over its connections") {
  Daemon d(1, {"--max-requests-per-uid", "2", "--test-faults"});
  auto a = greeted(d.socket());
  auto b = greeted(d.socket());
  // The first request hangs the only worker in a build (until its 2 s build timeout); the
  // second waits behind it; a third is one too many.
  auto hang = quick_options();
  hang.build_timeout = 2;
  REQUIRE(a->send(request_frame(1, function_task("fault.compiler_hang", {}), {"[]"}, hang) +
                  proto::encode(proto::StatusRequest{})));
  // Frames of one connection are handled in order: once the reply is in, so is the request.
  REQUIRE(a->read_until(proto::MessageType::StatusReply).back().type ==
          uint16_t(proto::MessageType::StatusReply));
  REQUIRE(b->send(request_frame(1, matmul_task(16), {"[]"}, quick_options())));
  REQUIRE(b->send(request_frame(2, matmul_task(16), {"[]"}, quick_options())));
  auto e = error_for(*b, 2);
  REQUIRE(e);
  CHECK(e->code == uint16_t(proto::ErrorCode::InvalidRequest));
  CHECK(e->message.find("per user") != std::string::npos);
  // The hanging client gone (the daemon closes it for bad bytes, so the close is done once
  // the connection ends), its request no longer counts: another request is accepted, and both
  // of b's run once the hung build is killed.
  REQUIRE(a->send("not a frame at all"));
  a->read_to_end();
  a.reset();
  REQUIRE(b->send(request_frame(3, matmul_task(16), {"[]"}, quick_options())));
  int done = 0;
  while (done < 2) {
    auto frames = b->read_until(proto::MessageType::RequestDone);
    REQUIRE(!frames.empty());
    CHECK(errors_in(frames).empty());
    done += frames.back().type == uint16_t(proto::MessageType::RequestDone);
  }
}

TEST_CASE("timing asks beyond the daemon's caps are refused, and an operator can raise the caps") {
  auto expect_refused = [](RawConnection& c, uint64_t id, const measure::MeasureOptions& o,
                           const std::string& flag) {
    REQUIRE(c.send(request_frame(id, matmul_task(16), {"[]"}, o)));
    auto e = error_for(c, id);
    REQUIRE(e);
    CHECK(e->code == uint16_t(proto::ErrorCode::InvalidRequest));
    CHECK(e->message.find(flag) != std::string::npos);
  };
  auto long_repeat = quick_options();
  long_repeat.min_repeat_ms = 40000;
  auto long_timeout = quick_options();
  long_timeout.run_timeout = 3600;
  auto many_calls = quick_options();
  many_calls.number = 1000000;
  many_calls.repeat = 1000;
  {
    Daemon d(1);
    auto c = greeted(d.socket());
    expect_refused(*c, 1, long_repeat, "--max-min-repeat-ms");
    expect_refused(*c, 2, long_timeout, "--max-run-timeout");
    expect_refused(*c, 3, many_calls, "--max-calls");
    CHECK(outcome_of(*c, 4, quick_options()) == 0);  // the connection is kept
  }
  {
    Daemon d(1, {"--max-run-timeout", "3600"});
    auto c = greeted(d.socket());
    CHECK(outcome_of(*c, 1, long_timeout) == 0);
  }
}

TEST_CASE("a NUL byte in a state is refused, not cut short") {
  Daemon d(1);
  auto c = greeted(d.socket());
  REQUIRE(c->send(request_frame(1, matmul_task(16), {"[]", std::string("[]\0[[\"SP\"]]", 12)},
                                quick_options())));
  auto e = error_for(*c, 1);
  REQUIRE(e);
  CHECK(e->code == uint16_t(proto::ErrorCode::InvalidRequest));
  CHECK(e->message.find("state 1") != std::string::npos);
  CHECK(e->message.find("NUL") != std::string::npos);
  CHECK(outcome_of(*c, 2, quick_options()) == 0);
}

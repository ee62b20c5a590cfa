#include "daemon/server/session.h"

#include <catch2/catch.hpp>
#include <optional>

#include "common/proto/codec.h"
#include "daemon/server/dispatcher.h"
#include "daemon/server/session_manager.h"
#include "fake_worker_pool.h"

using namespace mrd::daemon;
using namespace mrd::proto;
namespace asio = boost::asio;
using local = asio::local::stream_protocol;
using mrd::daemon::testing::FakeWorkerPool;

namespace {

/// A session on one end of a socket pair, a test client on the other, one io_context.
struct Harness {
  asio::io_context io;
  FakeWorkerPool pool{2};
  Dispatcher dispatcher{pool, mrd::measure::TimingPolicy::Shared};
  SessionManager manager;
  local::socket client{io};
  FrameDecoder decoder;
  bool eof = false;
  std::array<char, 4096> buf{};

  explicit Harness(uint32_t max_body = kDefaultMaxBody) {
    local::socket server(io);
    asio::local::connect_pair(client, server);
    SessionContext ctx;
    ctx.dispatcher = &dispatcher;
    ctx.manager = &manager;
    ctx.max_body = max_body;
    ctx.welcome = [] {
      Welcome w;
      w.cpu_model = "test cpu";
      w.workers = 2;
      return w;
    };
    ctx.status = [this] {
      StatusReply s;
      s.queued = dispatcher.stats().queued;
      return s;
    };
    auto s = std::make_shared<Session>(std::move(server), std::move(ctx), 1);
    manager.join(s);
    s->start();
  }

  /// Runs handlers until `flag` is set (an idle loop means the test is stuck: fail).
  void run_until(const bool& flag) {
    while (!flag) {
      if (io.stopped()) io.restart();
      REQUIRE(io.run_one_for(std::chrono::seconds(20)) > 0);
    }
  }

  void send(const std::string& bytes) { asio::write(client, asio::buffer(bytes)); }

  /// The next frame from the session; nullopt once the session closed the connection.
  std::optional<Frame> next() {
    for (;;) {
      if (auto f = decoder.next()) return f;
      if (eof) return std::nullopt;
      bool got = false;
      client.async_read_some(asio::buffer(buf), [&](boost::system::error_code ec, size_t n) {
        got = true;
        if (ec)
          eof = true;
        else
          decoder.feed(std::string_view(buf.data(), n));
      });
      run_until(got);
    }
  }

  template <class M>
  M expect() {
    auto f = next();
    REQUIRE(f);
    if (f->type == uint16_t(MessageType::Error) && M::kType != MessageType::Error)
      FAIL("error frame: " << decode<ErrorMsg>(f->body).message);
    REQUIRE(f->type == uint16_t(M::kType));
    return decode<M>(f->body);
  }

  void hello() {
    send(encode(Hello{}));
    CHECK(expect<Welcome>().cpu_model == "test cpu");
  }

  void expect_closed() { CHECK_FALSE(next()); }
};

MeasureRequest request(uint64_t id, int n) {
  MeasureRequest r;
  r.request_id = id;
  r.task = "task";
  for (int i = 0; i < n; ++i) r.states.push_back("[" + std::to_string(i) + "]");
  return r;
}

}  // namespace

TEST_CASE("session: hello, a request, results in order, done") {
  Harness h;
  h.hello();
  h.send(encode(request(11, 2)));
  h.send(encode(StatusRequest{}));
  CHECK(h.expect<StatusReply>().queued == 0);  // both inputs are building
  REQUIRE(h.pool.jobs.size() == 2);
  h.pool.complete(1);  // input 1's build
  h.pool.complete(0);  // input 0's build
  while (!h.pool.jobs.empty()) h.pool.complete(h.pool.jobs.size() - 1);
  auto r0 = h.expect<MeasureResultMsg>();
  auto r1 = h.expect<MeasureResultMsg>();
  CHECK(r0.request_id == 11);
  CHECK(r0.index == 0);
  CHECK(r1.index == 1);
  auto done = h.expect<RequestDone>();
  CHECK(done.request_id == 11);
  CHECK(done.count == 2);
}

TEST_CASE("session: a message before hello is refused and the connection closed") {
  Harness h;
  h.send(encode(StatusRequest{}));
  auto e = h.expect<ErrorMsg>();
  CHECK(e.code == uint16_t(ErrorCode::UnexpectedMessage));
  h.expect_closed();
}

TEST_CASE("session: garbage bytes get BAD_MAGIC and a close") {
  Harness h;
  h.send("GET / HTTP/1.1\r\n\r\n");
  CHECK(h.expect<ErrorMsg>().code == uint16_t(ErrorCode::BadMagic));
  h.expect_closed();
}

TEST_CASE("session: an oversized length is refused from the header alone") {
  Harness h(1024);
  h.hello();
  FrameHeader hdr;
  hdr.type = uint16_t(MessageType::MeasureRequest);
  hdr.body_length = 1u << 30;
  h.send(encode_header(hdr));
  CHECK(h.expect<ErrorMsg>().code == uint16_t(ErrorCode::BodyTooLarge));
  h.expect_closed();
}

TEST_CASE("session: a hostile body gets MALFORMED_BODY and a close") {
  Harness h;
  h.hello();
  std::string body = encode(request(1, 1)).substr(kHeaderSize);
  uint64_t huge = ~0ull;
  std::memcpy(body.data() + 8, &huge, 8);  // task length
  h.send(make_frame(uint16_t(MessageType::MeasureRequest), body));
  CHECK(h.expect<ErrorMsg>().code == uint16_t(ErrorCode::MalformedBody));
  h.expect_closed();
  CHECK(h.pool.jobs.empty());
}

TEST_CASE("session: a wrong protocol version in hello is refused") {
  Harness h;
  Hello hello;
  hello.min_version = 5;
  hello.max_version = 9;
  h.send(encode(hello));
  CHECK(h.expect<ErrorMsg>().code == uint16_t(ErrorCode::UnsupportedVersion));
  h.expect_closed();
}

TEST_CASE("session: bad options, unknown types and duplicates are answered, not fatal") {
  Harness h;
  h.hello();
  auto bad = request(3, 1);
  bad.options.run_timeout = 0;
  h.send(encode(bad));
  auto e = h.expect<ErrorMsg>();
  CHECK(e.code == uint16_t(ErrorCode::InvalidRequest));
  CHECK(e.request_id == 3);
  h.send(make_frame(999, "whatever"));
  CHECK(h.expect<ErrorMsg>().code == uint16_t(ErrorCode::UnexpectedMessage));
  h.send(encode(request(4, 3)));
  h.send(encode(request(4, 1)));
  e = h.expect<ErrorMsg>();
  CHECK(e.code == uint16_t(ErrorCode::DuplicateRequest));
  CHECK(e.request_id == 4);
  h.send(encode(Cancel{77}));
  CHECK(h.expect<ErrorMsg>().code == uint16_t(ErrorCode::UnknownRequest));
  h.send(encode(StatusRequest{}));
  CHECK(h.expect<StatusReply>().queued == 1);  // request 4: two building, one queued
}

TEST_CASE("session: a client that disconnects has its queued work dropped") {
  Harness h;
  h.hello();
  h.send(encode(request(1, 10)));
  h.send(encode(StatusRequest{}));
  CHECK(h.expect<StatusReply>().queued == 8);
  h.client.close();
  while (h.manager.size() > 0) {
    if (h.io.stopped()) h.io.restart();
    REQUIRE(h.io.run_one_for(std::chrono::seconds(20)) > 0);
  }
  CHECK(h.dispatcher.stats().queued == 0);
  CHECK(h.dispatcher.stats().requests == 0);
}

TEST_CASE("session: shutdown tells the client") {
  Harness h;
  h.hello();
  h.send(encode(request(1, 3)));
  h.send(encode(StatusRequest{}));
  h.expect<StatusReply>();
  h.manager.stop_all(ErrorCode::ShuttingDown, "stopping");
  auto e = h.expect<ErrorMsg>();
  CHECK(e.code == uint16_t(ErrorCode::ShuttingDown));
  h.expect_closed();
}

TEST_CASE("session: requests in flight per connection are capped") {
  Harness h;
  h.hello();
  for (uint64_t id = 1; id <= 256; ++id) h.send(encode(request(id, 1)));
  h.send(encode(request(999, 1)));
  auto e = h.expect<ErrorMsg>();
  CHECK(e.code == uint16_t(ErrorCode::InvalidRequest));
  CHECK(e.request_id == 999);
  // Finishing one request makes room for another.
  h.pool.complete(0);                       // request 1's build
  h.pool.complete(h.pool.jobs.size() - 1);  // its run
  CHECK(h.expect<MeasureResultMsg>().request_id == 1);
  CHECK(h.expect<RequestDone>().request_id == 1);
  h.send(encode(request(1000, 1)));
  h.send(encode(StatusRequest{}));
  CHECK(h.expect<StatusReply>().queued > 0);  // accepted: no error frame came first
}

TEST_CASE("session: a request from a peer that has hung up starts no job") {
  // Its end of file drops the request anyway: work started for it would only keep workers
  // from other clients.
  Harness h;
  h.hello();
  h.send(encode(request(1, 2)));
  h.client.shutdown(local::socket::shutdown_send);
  h.expect_closed();
  CHECK(h.pool.submitted == 0);
  CHECK(h.dispatcher.stats().requests == 0);
}

TEST_CASE("session: one peer's burst of small frames does not hold up another peer") {
  asio::io_context io;
  FakeWorkerPool pool{2};
  Dispatcher dispatcher{pool, mrd::measure::TimingPolicy::Shared};
  size_t burst_served = 0;
  std::optional<size_t> burst_served_when_other_was = std::nullopt;
  auto session = [&](local::socket& peer, std::function<void()> on_status, uint64_t id) {
    local::socket server(io);
    asio::local::connect_pair(peer, server);
    SessionContext ctx;
    ctx.dispatcher = &dispatcher;
    ctx.welcome = [] { return Welcome{}; };
    ctx.status = [on_status] {
      on_status();
      return StatusReply{};
    };
    auto s = std::make_shared<Session>(std::move(server), std::move(ctx), id);
    s->start();
    return s;
  };
  local::socket burst(io), other(io);
  auto a = session(burst, [&] { ++burst_served; }, 1);
  auto b = session(other, [&] { burst_served_when_other_was = burst_served; }, 2);
  const size_t n = 3000;  // 36 kB: one read
  std::string frames = encode(Hello{});
  for (size_t i = 0; i < n; ++i) frames += encode(StatusRequest{});
  asio::write(burst, asio::buffer(frames));
  while (burst_served == 0) REQUIRE(io.run_one_for(std::chrono::seconds(20)) > 0);
  // The burst is being served; now the other peer asks once.
  asio::write(other, asio::buffer(encode(Hello{}) + encode(StatusRequest{})));
  while (!burst_served_when_other_was) REQUIRE(io.run_one_for(std::chrono::seconds(20)) > 0);
  CHECK(*burst_served_when_other_was < n);
  a->close_with_error(ErrorCode::Internal, "end of test");
  b->close_with_error(ErrorCode::Internal, "end of test");
}

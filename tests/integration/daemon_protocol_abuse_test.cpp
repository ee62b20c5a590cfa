// Bad bytes on a real daemon's socket: each bad connection gets an Error frame or is closed,
// while another client is served.
#include <catch2/catch.hpp>
#include <random>

#include "common/proto/codec.h"
#include "daemon_fixture.h"
#include "raw_connection.h"

using namespace mrd;
using namespace mrd::testing;

namespace {

uint16_t error_code_of(const std::vector<proto::Frame>& frames) {
  for (const auto& f : frames)
    if (f.type == uint16_t(proto::MessageType::Error))
      return proto::decode<proto::ErrorMsg>(f.body).code;
  return 0;
}

bool served(const std::string& socket) {
  client::Client c(socket);
  int ok = 0;
  c.measure(matmul_task(16), {"[]", "[]"}, quick_options(),
            [&](uint32_t, const measure::MeasureResult& r) {
              ok += r.error_no == measure::MeasureErrorNo::NoError;
            });
  return ok == 2;
}

}  // namespace

TEST_CASE("garbage, wrong magic, oversized and truncated frames on a real daemon") {
  Daemon d(1);

  // A truncated frame stays open, half-sent, through everything below.
  RawConnection truncated(d.socket());
  std::string hello = proto::encode(proto::Hello{});
  REQUIRE(truncated.send(hello.substr(0, hello.size() / 2)));

  {
    RawConnection c(d.socket());
    REQUIRE(c.send("GET / HTTP/1.0\r\n\r\n"));
    CHECK(error_code_of(c.read_to_end()) == uint16_t(proto::ErrorCode::BadMagic));
  }
  CHECK(served(d.socket()));
  {
    RawConnection c(d.socket());
    std::string frame = proto::encode(proto::Hello{});
    frame[4] = 9;  // version
    REQUIRE(c.send(frame));
    CHECK(error_code_of(c.read_to_end()) == uint16_t(proto::ErrorCode::UnsupportedVersion));
  }
  {
    RawConnection c(d.socket());
    REQUIRE(c.send(proto::encode(proto::Hello{})));
    proto::FrameHeader h;
    h.type = uint16_t(proto::MessageType::MeasureRequest);
    h.body_length = 0xffffffffu;
    REQUIRE(c.send(proto::encode_header(h)));
    auto frames = c.read_to_end();
    REQUIRE(frames.size() == 2);
    CHECK(frames[0].type == uint16_t(proto::MessageType::Welcome));
    CHECK(error_code_of(frames) == uint16_t(proto::ErrorCode::BodyTooLarge));
  }
  {
    RawConnection c(d.socket());
    REQUIRE(c.send(proto::encode(proto::Hello{})));
    std::mt19937 rng(7);
    std::string body(300, '\0');
    for (auto& ch : body) ch = char(rng());
    REQUIRE(c.send(proto::make_frame(uint16_t(proto::MessageType::MeasureRequest), body)));
    CHECK(error_code_of(c.read_to_end()) == uint16_t(proto::ErrorCode::MalformedBody));
  }
  CHECK(served(d.socket()));
  ::shutdown(truncated.fd, SHUT_WR);  // the daemon sees the frame cut short and closes
  CHECK(truncated.read_to_end().empty());
  CHECK(served(d.socket()));
  CHECK(d.log().find("in the middle of a frame") != std::string::npos);
}

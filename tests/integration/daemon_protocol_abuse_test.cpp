// Bad bytes on a real daemon's socket: each bad connection gets an Error frame or is closed,
// while another client is served.
#include <sys/socket.h>
#include <sys/un.h>

#include <catch2/catch.hpp>
#include <random>

#include "common/proto/codec.h"
#include "daemon_fixture.h"

using namespace mrd;
using namespace mrd::testing;

namespace {

/// A bare connection that sends whatever bytes a test wants.
struct RawConnection {
  int fd = -1;
  proto::FrameDecoder decoder;
  explicit RawConnection(const std::string& path) {
    fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  }
  ~RawConnection() { ::close(fd); }
  void send(const std::string& bytes) {
    REQUIRE(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == ssize_t(bytes.size()));
  }
  /// Frames until the daemon closes the connection.
  std::vector<proto::Frame> read_to_end() {
    std::vector<proto::Frame> out;
    char buf[4096];
    for (;;) {
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      decoder.feed(std::string_view(buf, size_t(n)));
      while (auto f = decoder.next()) out.push_back(std::move(*f));
    }
    return out;
  }
};

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
  truncated.send(hello.substr(0, hello.size() / 2));

  {
    RawConnection c(d.socket());
    c.send("GET / HTTP/1.0\r\n\r\n");
    CHECK(error_code_of(c.read_to_end()) == uint16_t(proto::ErrorCode::BadMagic));
  }
  CHECK(served(d.socket()));
  {
    RawConnection c(d.socket());
    std::string frame = proto::encode(proto::Hello{});
    frame[4] = 9;  // version
    c.send(frame);
    CHECK(error_code_of(c.read_to_end()) == uint16_t(proto::ErrorCode::UnsupportedVersion));
  }
  {
    RawConnection c(d.socket());
    c.send(proto::encode(proto::Hello{}));
    proto::FrameHeader h;
    h.type = uint16_t(proto::MessageType::MeasureRequest);
    h.body_length = 0xffffffffu;
    c.send(proto::encode_header(h));
    auto frames = c.read_to_end();
    REQUIRE(frames.size() == 2);
    CHECK(frames[0].type == uint16_t(proto::MessageType::Welcome));
    CHECK(error_code_of(frames) == uint16_t(proto::ErrorCode::BodyTooLarge));
  }
  {
    RawConnection c(d.socket());
    c.send(proto::encode(proto::Hello{}));
    std::mt19937 rng(7);
    std::string body(300, '\0');
    for (auto& ch : body) ch = char(rng());
    c.send(proto::make_frame(uint16_t(proto::MessageType::MeasureRequest), body));
    CHECK(error_code_of(c.read_to_end()) == uint16_t(proto::ErrorCode::MalformedBody));
  }
  CHECK(served(d.socket()));
  ::shutdown(truncated.fd, SHUT_WR);  // the daemon sees the frame cut short and closes
  CHECK(truncated.read_to_end().empty());
  CHECK(served(d.socket()));
  CHECK(d.log().find("in the middle of a frame") != std::string::npos);
}

// A bare client connection for protocol tests: sends whatever bytes a test wants and reads
// frames until the daemon closes the connection.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/proto/codec.h"
#include "common/proto/frame_decoder.h"

namespace mrd::testing {

struct RawConnection {
  int fd = -1;
  proto::FrameDecoder decoder{1u << 30};
  explicit RawConnection(const std::string& path) {
    fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  }
  ~RawConnection() { ::close(fd); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  /// Sends all of `bytes`; false when the daemon has closed the connection first.
  bool send(const std::string& bytes) {
    size_t off = 0;
    while (off < bytes.size()) {
      ssize_t n = ::send(fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }
  /// Frames up to and including the first of `type` (or until the daemon closes).
  std::vector<proto::Frame> read_until(proto::MessageType type) {
    std::vector<proto::Frame> out;
    char buf[4096];
    for (;;) {
      while (auto f = decoder.next()) {
        out.push_back(std::move(*f));
        if (out.back().type == uint16_t(type)) return out;
      }
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return out;
      decoder.feed(std::string_view(buf, size_t(n)));
    }
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

/// Connects and says Hello; returns once the Welcome arrived.
inline std::unique_ptr<RawConnection> greeted(const std::string& socket) {
  auto c = std::make_unique<RawConnection>(socket);
  REQUIRE(c->send(proto::encode(proto::Hello{})));
  auto frames = c->read_until(proto::MessageType::Welcome);
  REQUIRE(!frames.empty());
  REQUIRE(frames.back().type == uint16_t(proto::MessageType::Welcome));
  return c;
}

/// The Error frames among `frames`, decoded.
inline std::vector<proto::ErrorMsg> errors_in(const std::vector<proto::Frame>& frames) {
  std::vector<proto::ErrorMsg> out;
  for (const auto& f : frames)
    if (f.type == uint16_t(proto::MessageType::Error))
      out.push_back(proto::decode<proto::ErrorMsg>(f.body));
  return out;
}

}  // namespace mrd::testing

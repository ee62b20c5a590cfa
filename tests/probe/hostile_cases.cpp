#include "tests/probe/hostile_cases.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

#include "common/measure/task.h"
#include "common/proto/codec.h"

namespace mrd::probe {

namespace fs = std::filesystem;

RawPeer::RawPeer(const std::string& socket_path, double guard_seconds) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  timeval tv{static_cast<time_t>(guard_seconds),
             static_cast<suseconds_t>(std::fmod(guard_seconds, 1.0) * 1e6)};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket_path.c_str(), sizeof addr.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return;
  }
  fd_ = fd;
}

RawPeer::~RawPeer() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawPeer::send(const std::string& bytes) {
  size_t off = 0;
  while (fd_ >= 0 && off < bytes.size()) {
    ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += size_t(n);
  }
  return fd_ >= 0;
}

size_t RawPeer::drain() {
  size_t total = 0;
  char buf[65536];
  for (;;) {
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return total;
    total += size_t(n);
  }
}

void RawPeer::shutdown_write() {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_WR);
}

namespace {

std::string hello(const std::string& name = "probe") {
  proto::Hello h;
  h.client_name = name;
  return proto::encode(h);
}

proto::MeasureRequest valid_request(uint64_t id) {
  measure::Task t;
  t.workload = registry::FunctionWorkload{"matmul", {int64_t(16), int64_t(16), int64_t(16),
                                                     std::string("float32")}};
  proto::MeasureRequest r;
  r.request_id = id;
  r.task = measure::task_to_binary(t);
  r.states = {"[]", R"([["SP", 2, 0, 16, [4], 1]])"};
  r.options.number = 1;
  r.options.repeat = 1;
  r.options.min_repeat_ms = 0;
  r.options.run_timeout = 2;
  r.options.build_timeout = 5;
  return r;
}

}  // namespace

HostileCases::HostileCases(std::string socket_path, uint64_t seed)
    : socket_(std::move(socket_path)), rng_(seed) {}

void HostileCases::fuzz(size_t n) {
  auto pick = [&](size_t k) { return size_t(rng_() % k); };
  for (size_t i = 0; i < n; ++i) {
    proto::MeasureRequest r = valid_request(i + 1);
    // Field-level mutations keep the frame decodable; byte-level ones mostly do not.
    switch (pick(8)) {
      case 0: r.options.number = int(rng_()); break;
      case 1: r.options.run_timeout = std::numeric_limits<double>::quiet_NaN(); break;
      case 2: r.options.min_repeat_ms = int(rng_() % 1000000); break;
      case 3: r.states.assign(pick(64) + 1, std::string(pick(200), char(rng_()))); break;
      case 4: r.task.resize(pick(r.task.size() + 1)); break;
      case 5: r.task[pick(r.task.size())] ^= char(1 << pick(8)); break;
      case 6: r.states[0] = R"([["SP", 2, 0, 16, [)" + std::to_string(rng_()) + "], 1]]"; break;
      default: break;
    }
    std::string frame = proto::encode(r);
    switch (pick(4)) {
      case 0: frame[proto::kHeaderSize + pick(frame.size() - proto::kHeaderSize)] ^= char(rng_()); break;
      case 1: frame.resize(proto::kHeaderSize + pick(frame.size() - proto::kHeaderSize)); break;
      case 2: frame[pick(proto::kHeaderSize)] ^= char(1 << pick(8)); break;
      default: break;
    }
    RawPeer p(socket_);
    ++counts_.cases;
    if (!p.connected()) continue;
    // The peer stops sending after the request: the daemon answers what it can, then the end
    // of file drops whatever is left of its work.
    if (p.send(hello() + frame)) p.shutdown_write();
    p.drain();
  }
}

void HostileCases::flood(size_t requests) {
  std::string one = proto::encode(proto::StatusRequest{});
  std::string batch;
  for (int i = 0; i < 1024; ++i) batch += one;
  {
    RawPeer p(socket_, 2);
    if (p.connected() && p.send(hello()))
      for (size_t sent = 0; sent < requests; sent += 1024)
        if (!p.send(batch)) break;  // stalled: the daemon stopped reading
    ++counts_.cases;
  }
  for (int i = 0; i < 200; ++i) {
    RawPeer p(socket_);
    p.send(hello());
    ++counts_.cases;
  }
}

void HostileCases::never_reading(size_t requests) {
  auto p = std::make_unique<RawPeer>(socket_, 2);
  std::string one = proto::encode(proto::StatusRequest{});
  std::string batch;
  for (int i = 0; i < 1024; ++i) batch += one;
  if (p->connected() && p->send(hello()) && p->send(proto::encode(valid_request(1))))
    for (size_t sent = 0; sent < requests; sent += 1024)
      if (!p->send(batch)) break;
  ++counts_.cases;
  held_.push_back(std::move(p));
}

void HostileCases::exhaust_fds(pid_t daemon, size_t spare, size_t connections) {
  size_t open = 0;
  int highest = 0;
  for (const auto& e : fs::directory_iterator("/proc/" + std::to_string(daemon) + "/fd")) {
    ++open;
    highest = std::max(highest, std::stoi(e.path().filename().string()));
  }
  rlimit old{};
  if (::prlimit(daemon, RLIMIT_NOFILE, nullptr, &old) != 0) return;
  rlimit tight{rlim_t(highest + 1 + spare), old.rlim_max};
  ::prlimit(daemon, RLIMIT_NOFILE, &tight, nullptr);
  std::vector<std::unique_ptr<RawPeer>> peers;
  for (size_t i = 0; i < connections; ++i) {
    peers.push_back(std::make_unique<RawPeer>(socket_, 2));
    peers.back()->send(hello());
    ++counts_.cases;
  }
  peers.clear();
  ::prlimit(daemon, RLIMIT_NOFILE, &old, nullptr);
}

void HostileCases::slowloris(size_t n) {
  std::vector<std::unique_ptr<RawPeer>> peers;
  std::string h = hello();
  std::string status = proto::encode(proto::StatusRequest{});
  for (size_t i = 0; i < n; ++i) {
    peers.push_back(std::make_unique<RawPeer>(socket_, 30));
    peers.back()->send(h.substr(0, 1));
    peers.push_back(std::make_unique<RawPeer>(socket_, 30));
    peers.back()->send(h + status.substr(0, 5));
    counts_.cases += 2;
  }
  // Each ends when the daemon closes it (Hello or idle timeout).
  for (auto& p : peers) p->drain();
}

void HostileCases::refusals(size_t over_cap) {
  {
    RawPeer p(socket_);
    auto nul = valid_request(1);
    nul.states[1] = std::string("[]\0[[\"SP\"]]", 12);
    auto slow = valid_request(2);
    slow.options.min_repeat_ms = 40000;
    auto hold = valid_request(3);
    hold.options.run_timeout = 3600;
    p.send(hello("probe\n2026-01-01 00:00:00.000 [error] forged\x1b[2J") + proto::encode(nul) +
           proto::encode(slow) + proto::encode(hold));
    p.shutdown_write();
    p.drain();
    counts_.cases += 4;
  }
  std::vector<std::unique_ptr<RawPeer>> peers;
  for (size_t i = 0; i < over_cap; ++i) {
    peers.push_back(std::make_unique<RawPeer>(socket_, 2));
    peers.back()->send(hello());
    ++counts_.cases;
  }
}

void HostileCases::release_held() {
  held_.clear();
}

}  // namespace mrd::probe

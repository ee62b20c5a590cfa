#include "client/lib/client.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "common/proto/codec.h"
#include "common/util/error.h"

namespace mrd::client {

using proto::MessageType;

std::string default_socket_path() {
  if (const char* s = std::getenv("MEASURERD_SOCKET"); s && *s) return s;
  if (::access("/run/measurerd/measurerd.sock", F_OK) == 0) return "/run/measurerd/measurerd.sock";
  if (const char* x = std::getenv("XDG_RUNTIME_DIR"); x && *x)
    return std::string(x) + "/measurerd.sock";
  return "/run/measurerd/measurerd.sock";
}

std::string connect_hint(int error) {
  if (error == EACCES || error == EPERM)
    return "  this user may not use that socket: measurerd's socket is open to its group "
           "(add yourself with `usermod -aG measurerd $USER`, then log in again)";
  return "  is measurerd running? Start it with `measurerd --socket PATH`, or as a service with "
         "`systemctl start measurerd.socket`;\n"
         "  a daemon listening elsewhere is reached with --socket PATH or MEASURERD_SOCKET=PATH";
}

bool is_cancelled(const measure::MeasureResult& r) {
  return r.error_no == measure::MeasureErrorNo::UnknownError && r.error_msg == kCancelledMessage;
}

Client::Client(const std::string& socket_path, const std::string& client_name)
    : decoder_(1u << 30) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof addr.sun_path)
    throw ConnectionError("socket path too long: " + socket_path);
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw ConnectionError(std::string("socket: ") + std::strerror(errno));
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int e = errno;
    ::close(fd_);
    fd_ = -1;
    throw ConnectionError(str_cat("cannot connect to measurerd at ", socket_path, ": ",
                                  std::strerror(e), "\n", connect_hint(e)));
  }
  proto::Hello hello;
  hello.client_name = client_name;
  try {
    send_bytes(proto::encode(hello));
  } catch (const ConnectionError&) {
    // A daemon that refuses this peer (PEER_NOT_ALLOWED) sends its Error frame at connect and
    // closes without reading, so the Hello may meet a closed socket: what the daemon said is
    // still there to read, and is the better message.
    std::optional<proto::Frame> said;
    try {
      said = read_frame();
    } catch (const ConnectionError&) {
    }
    if (said) throw_server_error(*said);
    throw;
  }
  proto::Frame f = expect_frame();
  if (f.type != uint16_t(MessageType::Welcome)) throw_server_error(f);
  welcome_ = proto::decode<proto::Welcome>(f.body);
}

Client::~Client() {
  if (fd_ >= 0) ::close(fd_);
}

void Client::send_bytes(const std::string& bytes) {
  std::lock_guard<std::mutex> lock(write_mutex_);
  send_locked(bytes);
}

void Client::send_locked(const std::string& bytes) {
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw ConnectionError(std::string("send to measurerd: ") + std::strerror(errno));
    off += static_cast<size_t>(n);
  }
}

std::optional<proto::Frame> Client::read_frame() {
  char buf[64 * 1024];
  for (;;) {
    if (auto f = decoder_.next()) return f;
    if (decoder_.failure())
      throw ConnectionError("bad frame from measurerd: " + decoder_.failure()->message);
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw ConnectionError(std::string("read from measurerd: ") + std::strerror(errno));
    if (n == 0) return std::nullopt;
    decoder_.feed(std::string_view(buf, static_cast<size_t>(n)));
  }
}

proto::Frame Client::expect_frame() {
  for (;;) {
    auto f = read_frame();
    if (!f) throw ConnectionError("measurerd closed the connection");
    if (is_stale_cancel_answer(*f)) continue;
    return std::move(*f);
  }
}

bool Client::is_stale_cancel_answer(const proto::Frame& f) {
  if (f.type != uint16_t(MessageType::Error)) return false;
  auto e = proto::decode<proto::ErrorMsg>(f.body);
  if (e.code != uint16_t(proto::ErrorCode::UnknownRequest)) return false;
  std::lock_guard<std::mutex> lock(write_mutex_);
  return cancelled_requests_.erase(e.request_id) > 0;
}

bool Client::cancel() noexcept {
  std::lock_guard<std::mutex> lock(write_mutex_);
  if (!measuring_) return false;
  cancel_requested_ = true;
  if (in_flight_ != 0 && !cancel_sent_) {
    cancel_sent_ = true;
    try {
      cancelled_requests_.insert(in_flight_);
      proto::Cancel c;
      c.request_id = in_flight_;
      send_locked(proto::encode(c));
    } catch (const std::exception&) {
      // The reading side sees the broken connection and reports it.
    }
  }
  return true;
}

void Client::throw_server_error(const proto::Frame& f) {
  if (f.type == uint16_t(MessageType::Error)) {
    auto e = proto::decode<proto::ErrorMsg>(f.body);
    throw ServerError(
        static_cast<proto::ErrorCode>(e.code), e.request_id,
        str_cat("measurerd: ", proto::error_code_name(static_cast<proto::ErrorCode>(e.code)), ": ",
                e.message));
  }
  throw ConnectionError(str_cat("unexpected message type ", f.type, " from measurerd"));
}

proto::RequestDone Client::measure(const measure::Task& task,
                                   const std::vector<std::string>& states,
                                   const measure::MeasureOptions& options,
                                   const OnResult& on_result) {
  return measure(measure::task_to_binary(task), states, options, on_result);
}

proto::RequestDone Client::measure(const std::string& task_bytes,
                                   const std::vector<std::string>& states,
                                   const measure::MeasureOptions& options,
                                   const OnResult& on_result) {
  {
    std::lock_guard<std::mutex> lock(write_mutex_);
    measuring_ = true;
    in_flight_ = 0;
    cancel_requested_ = false;
  }
  struct Idle {
    Client* c;
    ~Idle() {
      std::lock_guard<std::mutex> lock(c->write_mutex_);
      c->measuring_ = false;
      c->in_flight_ = 0;
    }
  } idle{this};
  size_t chunk = welcome_.max_states ? welcome_.max_states : states.size();
  proto::RequestDone total;
  for (size_t off = 0; off < states.size() || (off == 0 && states.empty()); off += chunk) {
    std::vector<std::string> part(states.begin() + off,
                                  states.begin() + std::min(states.size(), off + chunk));
    auto done = measure_one(task_bytes, part, off, options, on_result);
    total.request_id = done.request_id;
    total.count += done.count;
    total.errors += done.errors;
    if (states.empty()) break;
  }
  return total;
}

proto::RequestDone Client::measure_one(const std::string& task_bytes,
                                       const std::vector<std::string>& states, size_t offset,
                                       const measure::MeasureOptions& options,
                                       const OnResult& on_result) {
  proto::MeasureRequest req;
  req.request_id = next_request_++;
  req.task = task_bytes;
  req.states = states;
  req.options = options;
  bool sent = false;
  {
    std::lock_guard<std::mutex> lock(write_mutex_);
    if (!cancel_requested_) {
      send_locked(proto::encode(req));
      in_flight_ = req.request_id;
      cancel_sent_ = false;
      sent = true;
    }
  }
  if (!sent) {  // cancelled before this part was sent: its results are local
    proto::RequestDone d;
    d.request_id = req.request_id;
    for (uint32_t i = 0; i < states.size(); ++i) {
      measure::MeasureResult r;
      r.error_no = measure::MeasureErrorNo::UnknownError;
      r.error_msg = kCancelledMessage;
      r.policy = welcome_.policy;
      r.timestamp = static_cast<double>(std::time(nullptr));
      ++d.count;
      ++d.errors;
      if (on_result) on_result(static_cast<uint32_t>(offset + i), r);
    }
    return d;
  }
  uint32_t expected = 0;
  for (;;) {
    proto::Frame f = expect_frame();
    auto type = static_cast<MessageType>(f.type);
    if (type == MessageType::MeasureResult) {
      auto m = proto::decode<proto::MeasureResultMsg>(f.body);
      if (m.request_id != req.request_id || m.index != expected)
        throw ConnectionError(str_cat("result out of order from measurerd: request ", m.request_id,
                                      " index ", m.index));
      ++expected;
      if (on_result) on_result(static_cast<uint32_t>(offset + m.index), m.result);
    } else if (type == MessageType::RequestDone) {
      auto d = proto::decode<proto::RequestDone>(f.body);
      if (d.request_id != req.request_id || d.count != expected)
        throw ConnectionError("request done before all its results");
      std::lock_guard<std::mutex> lock(write_mutex_);
      in_flight_ = 0;
      return d;
    } else {
      throw_server_error(f);
    }
  }
}

proto::StatusReply Client::status() {
  send_bytes(proto::encode(proto::StatusRequest{}));
  proto::Frame f = expect_frame();
  if (f.type != uint16_t(MessageType::StatusReply)) throw_server_error(f);
  return proto::decode<proto::StatusReply>(f.body);
}

}  // namespace mrd::client

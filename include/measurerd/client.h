// The client of measurerd: connect to the daemon's socket, measure the states of a task with
// one callback per result in submission order, cancel a measurement in flight, read the
// daemon's status. Blocking; one request at a time per Client (use one Client per measuring
// thread). Only cancel() may be called from another thread while measure() runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "measurerd/task.h"
#include "measurerd/types.h"

namespace measurerd {

/// The daemon cannot be reached, or the connection broke. what() says why and, when the
/// daemon is not there, how to start it or point the client at it.
class ConnectionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The daemon answered with an error (e.g. PEER_NOT_ALLOWED, INVALID_REQUEST).
class ServerError : public std::runtime_error {
 public:
  ServerError(int code, std::string code_name, const std::string& message)
      : std::runtime_error(message), code_(code), code_name_(std::move(code_name)) {}
  /// The protocol's error code (proto-docs/protocol.md).
  int code() const { return code_; }
  /// "PEER_NOT_ALLOWED", "INVALID_REQUEST", ...
  const std::string& code_name() const { return code_name_; }

 private:
  int code_;
  std::string code_name_;
};

/// $MEASURERD_SOCKET, else /run/measurerd/measurerd.sock when it exists, else
/// $XDG_RUNTIME_DIR/measurerd.sock.
std::string default_socket_path();

/// What the daemon said about itself when the client connected.
struct ServerInfo {
  std::string version;
  std::string cpu_model;
  unsigned cores = 0;
  unsigned workers = 0;
  TimingPolicy policy = TimingPolicy::Exclusive;
  unsigned max_states = 0;  ///< most states per request (measure() splits larger batches)
};

/// The daemon's counters.
struct Status {
  unsigned workers = 0;  ///< configured pool size
  unsigned workers_alive = 0;
  std::uint64_t queued = 0;     ///< inputs waiting for a build or a run
  std::uint64_t in_flight = 0;  ///< jobs on workers now
  std::uint64_t completed = 0;  ///< inputs finished since start
  double throughput = 0;        ///< inputs per second over the last minute
  std::uint64_t cache_hits = 0;
  double uptime = 0;  ///< seconds
  unsigned clients = 0;
  TimingPolicy policy = TimingPolicy::Exclusive;
};

/// Totals of one measure() call.
struct MeasureSummary {
  std::size_t count = 0;   ///< results received (one per state)
  std::size_t errors = 0;  ///< of which measure errors
};

class Client {
 public:
  /// Connects to the daemon at `socket_path` and says hello. Throws ConnectionError or
  /// ServerError.
  explicit Client(const std::string& socket_path = default_socket_path(),
                  const std::string& client_name = "libmeasurerd-client");
  ~Client();
  Client(Client&&) noexcept;
  Client& operator=(Client&&) noexcept;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const ServerInfo& server() const;

  using OnResult = std::function<void(std::size_t index, const MeasureResult& result)>;

  /// Measures every state (JSON text of its transform steps) of `task`; `on_result` sees each
  /// result as it arrives, in index order, exactly once per state (also after cancel()).
  /// Throws ConnectionError, ServerError, or InvalidInput for a task the library cannot send.
  MeasureSummary measure(const Task& task, const std::vector<std::string>& states,
                         const MeasureOptions& options, const OnResult& on_result);

  /// Cancels the measure() in progress (safe from `on_result` and from any other thread):
  /// states not yet started come back cancelled (is_cancelled()), measure() returns once every
  /// result is in. False when no measure() is in progress. Never throws.
  bool cancel() noexcept;

  Status status();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace measurerd

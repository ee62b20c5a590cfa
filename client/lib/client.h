// The C++ client of measurerd, for the measurer CLI and for tuners: connect (with the
// Hello/Welcome exchange), measure a batch with one callback per result in submission order,
// cancel a measurement in flight, ask for the status. Blocking; one request at a time per
// Client (use one Client per measuring thread). Only cancel() may be called from another
// thread while measure() runs.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/measure/measure_types.h"
#include "common/measure/task.h"
#include "common/proto/frame_decoder.h"
#include "common/proto/messages.h"
#include "common/proto/protocol_error.h"

namespace mrd::client {

/// The daemon cannot be reached, or the connection broke.
class ConnectionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The daemon answered with an Error frame.
class ServerError : public std::runtime_error {
 public:
  ServerError(proto::ErrorCode code, uint64_t request_id, const std::string& message)
      : std::runtime_error(message), code_(code), request_id_(request_id) {}
  proto::ErrorCode code() const { return code_; }
  uint64_t request_id() const { return request_id_; }

 private:
  proto::ErrorCode code_;
  uint64_t request_id_;
};

/// $MEASURERD_SOCKET, else /run/measurerd/measurerd.sock when it exists, else
/// $XDG_RUNTIME_DIR/measurerd.sock.
std::string default_socket_path();

/// What to try when connect() failed with `error` (an errno): start the daemon, point the
/// client at its socket, or join its group.
std::string connect_hint(int error);

/// The error_msg of a result whose input was cancelled before it started (error_no is
/// UNKNOWN_ERROR).
inline constexpr const char* kCancelledMessage = "cancelled";

/// True for the result of an input that was cancelled, not measured.
bool is_cancelled(const measure::MeasureResult& r);

class Client {
 public:
  /// Connects to the daemon at `socket_path` and says hello. Throws ConnectionError or
  /// ServerError.
  explicit Client(const std::string& socket_path, const std::string& client_name = "measurer");
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const proto::Welcome& welcome() const { return welcome_; }

  using OnResult = std::function<void(uint32_t index, const measure::MeasureResult& result)>;

  /// Measures every state of the serialized task; `on_result` sees each result as it arrives,
  /// in index order, exactly once per state (also after cancel()). Batches above the server's
  /// max_states go as several requests, one after the other. Returns the totals. Throws
  /// ConnectionError or ServerError.
  proto::RequestDone measure(const std::string& task_bytes, const std::vector<std::string>& states,
                             const measure::MeasureOptions& options, const OnResult& on_result);
  /// The same for a task object (serialized here).
  proto::RequestDone measure(const measure::Task& task, const std::vector<std::string>& states,
                             const measure::MeasureOptions& options, const OnResult& on_result);

  /// Cancels the measure() in progress; safe to call from `on_result` (to stop after some
  /// result) and from any other thread. The daemon answers the inputs not yet started with
  /// UNKNOWN_ERROR kCancelledMessage, inputs already on a worker finish, and measure() returns
  /// as usual once every result has arrived (RequestDone), so the connection stays usable for
  /// the next request. States of a batch never sent (above max_states) get the same cancelled
  /// result locally. Returns false when no measure() is in progress (then nothing happens: a
  /// later measure() is not affected). Never throws: a broken connection shows in measure().
  bool cancel() noexcept;
  /// True when cancel() took effect on the measure() in progress or on the last one.
  bool cancelled() const { return cancel_requested_.load(); }

  proto::StatusReply status();

  /// Raw access, for tests of the protocol: send bytes, read the next frame (nullopt on EOF).
  void send_bytes(const std::string& bytes);
  std::optional<proto::Frame> read_frame();

 private:
  proto::RequestDone measure_one(const std::string& task_bytes,
                                 const std::vector<std::string>& states, size_t offset,
                                 const measure::MeasureOptions& options, const OnResult& on_result);
  proto::Frame expect_frame();
  [[noreturn]] void throw_server_error(const proto::Frame& f);
  void send_locked(const std::string& bytes);
  /// An UNKNOWN_REQUEST answer to a Cancel that crossed its request's RequestDone.
  bool is_stale_cancel_answer(const proto::Frame& f);

  int fd_ = -1;
  proto::FrameDecoder decoder_;
  proto::Welcome welcome_;
  uint64_t next_request_ = 1;

  std::mutex write_mutex_;  // one writer at a time on fd_; guards the fields below
  bool measuring_ = false;
  uint64_t in_flight_ = 0;                // request id sent and not yet done, 0 for none
  bool cancel_sent_ = false;              // a Cancel for in_flight_ was sent
  std::set<uint64_t> cancelled_requests_; // ids a Cancel was sent for (its answer may come late)
  std::atomic<bool> cancel_requested_{false};
};

}  // namespace mrd::client

// The C++ client of measurerd, for the measurer CLI and for tuners: connect (with the
// Hello/Welcome exchange), measure a batch with one callback per result in submission order,
// ask for the status. Blocking; one request at a time per Client (use one Client per thread).
#pragma once

#include <cstdint>
#include <functional>
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
  /// in index order. Batches above the server's max_states go as several requests, one after
  /// the other. Returns the totals. Throws ConnectionError or ServerError.
  proto::RequestDone measure(const std::string& task_bytes, const std::vector<std::string>& states,
                             const measure::MeasureOptions& options, const OnResult& on_result);
  /// The same for a task object (serialized here).
  proto::RequestDone measure(const measure::Task& task, const std::vector<std::string>& states,
                             const measure::MeasureOptions& options, const OnResult& on_result);

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

  int fd_ = -1;
  proto::FrameDecoder decoder_;
  proto::Welcome welcome_;
  uint64_t next_request_ = 1;
};

}  // namespace mrd::client

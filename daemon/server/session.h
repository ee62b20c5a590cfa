// One client connection: owns the socket, reads frames through the pure FrameDecoder, answers
// hello and status, hands measure requests to the dispatcher and writes results back as they
// come. A peer that does not read its replies is not read from either while its unsent bytes
// exceed a limit, and its jobs wait, so its replies cannot grow the daemon. Every error becomes
// an Error frame; a frame-level error (bad magic, version, oversized
// length, malformed body) closes the connection after the Error frame is written. The socket
// is injected, so tests drive a session over local::connect_pair.
#pragma once

#include <array>
#include <chrono>
#include <boost/asio.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "common/proto/frame_decoder.h"
#include "common/proto/messages.h"
#include "common/proto/protocol_error.h"
#include "daemon/server/peer_limits.h"

namespace mrd::daemon {

class Dispatcher;
class SessionManager;

/// What a session needs from the daemon around it.
struct SessionContext {
  Dispatcher* dispatcher = nullptr;
  SessionManager* manager = nullptr;  ///< optional
  std::function<proto::Welcome()> welcome;
  std::function<proto::StatusReply()> status;
  uint32_t max_body = proto::kDefaultMaxBody;
  proto::Limits limits;
  /// Requests one connection may have in flight; more are refused (INVALID_REQUEST).
  size_t max_requests = 256;
  /// Bytes queued for the peer and not yet written past which the session stops reading from
  /// it and its jobs stop starting, until it has read half of them.
  size_t max_unsent = 4u << 20;
  /// Seconds from start() to a whole Hello, else Error TIMED_OUT; 0: no limit.
  double hello_timeout = 0;
  /// Seconds with no whole frame received, no reply written and no request in flight (or
  /// requests in flight but replies unread), else Error TIMED_OUT; 0: no limit.
  double idle_timeout = 0;
  /// What the peer's uid holds over all its connections (optional), and its request cap.
  std::shared_ptr<UidUsage> uid_usage;
  size_t max_uid_requests = 1024;
  /// Refuses a request's options beyond what this daemon allows (operator caps); empty: fine.
  std::function<std::string(const measure::MeasureOptions&)> check_caps;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  using Socket = boost::asio::local::stream_protocol::socket;

  Session(Socket socket, SessionContext context, uint64_t client_id);

  /// Starts reading. Call once, on a session held by a shared_ptr.
  void start();
  /// Sends an Error frame and closes once it is written (used at shutdown). Also used without
  /// start(), on a peer that is refused at connect: nothing is ever read from it.
  void close_with_error(proto::ErrorCode code, const std::string& message);
  uint64_t client_id() const { return client_id_; }

 private:
  void do_read();
  /// Handles the whole frames read so far, at most kFramesPerTurn before letting the rest of
  /// the event loop run; then reads on (unless paused or closing).
  void handle_frames();
  static constexpr size_t kFramesPerTurn = 64;
  /// Queued frames written with one gathered write, at most.
  static constexpr size_t kFramesPerWrite = 64;
  void handle_frame(const proto::Frame& frame);
  void handle_measure(const proto::Frame& frame);
  /// The peer has shut down its sending side or closed: no more frames will come and the end
  /// of file is next.
  bool peer_hung_up();
  void send(std::string frame);
  void do_write();
  /// The peer reads too slowly: stop reading it and starting its jobs.
  void pause();
  void resume();
  void fail(proto::ErrorCode code, const std::string& message);
  /// Arms the Hello or idle deadline.
  void arm_deadline(double seconds);
  void on_deadline();
  void close();

  Socket socket_;
  SessionContext ctx_;
  uint64_t client_id_;
  proto::FrameDecoder decoder_;
  std::array<char, 64 * 1024> buffer_;
  std::deque<std::string> out_;
  size_t unsent_ = 0;  ///< bytes in out_
  bool writing_ = false;
  bool paused_ = false;   ///< over max_unsent: not reading, no job starting
  bool reading_ = false;  ///< a read is pending
  bool greeted_ = false;
  bool closing_ = false;  ///< no more reads; close when the write queue drains
  bool closed_ = false;
  std::shared_ptr<size_t> in_flight_ = std::make_shared<size_t>(0);
  boost::asio::steady_timer deadline_;
  /// Last whole frame received or reply written.
  std::chrono::steady_clock::time_point last_activity_ = std::chrono::steady_clock::now();
};

}  // namespace mrd::daemon

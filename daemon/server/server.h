// The daemon: one io_context, the listening socket (from systemd or bound), the signals
// (SIGTERM/SIGINT stop, SIGHUP reopens logs), the worker pool, the dispatcher and the live
// sessions. Each accepted connection's peer is checked against the peer policy before a byte
// is read. READY=1 goes to systemd once every worker has said ready. Under a watchdog
// (WATCHDOG_USEC), the event loop sends WATCHDOG=1 at half the interval: a loop that hangs
// stops it, and systemd restarts the service.
#pragma once

#include <boost/asio.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/measure/measure_types.h"
#include "common/proto/frame.h"
#include "daemon/server/dispatcher.h"
#include "daemon/server/listen_socket.h"
#include "daemon/server/peer_limits.h"
#include "daemon/server/peer_policy.h"
#include "daemon/server/process_worker_pool.h"
#include "daemon/server/session_manager.h"
#include "daemon/server/timing_caps.h"

namespace mrd::daemon {

struct ServerConfig {
  std::string socket_path;  ///< empty: systemd's socket, else default_socket_path()
  ProcessPoolConfig pool;
  measure::TimingPolicy policy = measure::TimingPolicy::Exclusive;
  uint32_t max_body = proto::kDefaultMaxBody;
  uint32_t max_states = 4096;
  /// Who may connect besides root and the daemon's own user; empty: the socket's group.
  PeerAllowList allow;
  PeerLimits peer;
  TimingCaps caps;
  /// Seconds the queue may wait while no worker is running (all failing to start) before its
  /// inputs fail with UNKNOWN_ERROR.
  double no_worker_timeout = 30;
};

class Server {
 public:
  Server(boost::asio::io_context& io, ServerConfig config);
  ~Server();

  /// Opens the socket and starts the workers; throws UserError when the socket cannot be had.
  void start();
  /// Stops accepting, tells every client (SHUTTING_DOWN), stops the workers.
  void stop();
  /// Why the daemon could not start (it stopped before READY), empty otherwise.
  const std::string& failure() const { return failure_; }
  const std::string& socket_path() const { return socket_path_; }
  const ServerConfig& config() const { return config_; }
  Dispatcher& dispatcher() { return dispatcher_; }
  /// Called once when the server stops (on the event loop), before the workers stop.
  void set_on_stop(std::function<void()> on_stop) { on_stop_ = std::move(on_stop); }

 private:
  void do_accept();
  /// Backs off after a failed accept (descriptors exhausted): one warning per episode.
  void accept_failed(const boost::system::error_code& ec);
  /// Checks the peer of a new connection and starts its session, or refuses it.
  void on_accepted(boost::asio::local::stream_protocol::socket socket);
  /// Writes one Error frame to a connection that is refused at connect, then closes it.
  void refuse(boost::asio::local::stream_protocol::socket socket, uint64_t id,
              proto::ErrorCode code, const std::string& message);
  /// Sets the peer policy once the socket file is known (its group is the default group).
  void set_peer_policy();
  void wait_signal();
  /// Unlinks the socket file this daemon bound, unless the path now names another file.
  void remove_socket_file();
  /// Fails the waiting inputs once no worker has been running for no_worker_timeout.
  void watch_workers();
  /// Refreshes systemd's STATUS= line every few seconds, when it changed.
  void report_status();
  /// Sends WATCHDOG=1 now and every watchdog_interval_ from the event loop.
  void kick_watchdog();
  proto::Welcome welcome() const;
  proto::StatusReply status() const;

  boost::asio::io_context& io_;
  ServerConfig config_;
  boost::asio::local::stream_protocol::acceptor acceptor_;
  boost::asio::signal_set signals_;
  boost::asio::steady_timer status_timer_;
  boost::asio::steady_timer accept_timer_;
  boost::asio::steady_timer worker_watch_timer_;
  boost::asio::steady_timer watchdog_timer_;
  std::chrono::microseconds watchdog_interval_{0};
  /// Since when work has waited with no worker running.
  std::optional<std::chrono::steady_clock::time_point> starved_since_;
  static constexpr std::chrono::milliseconds kAcceptBackoffMin{10};
  static constexpr std::chrono::milliseconds kAcceptBackoffMax{200};
  std::chrono::milliseconds accept_backoff_ = kAcceptBackoffMin;
  uint64_t accept_failures_ = 0;  ///< failed accepts in the current episode
  ProcessWorkerPool pool_;
  Dispatcher dispatcher_;
  SessionManager sessions_;
  UidUsageTable uid_usage_;
  std::string socket_path_;
  PeerPolicy peer_policy_;
  std::string peer_policy_text_;
  std::string last_status_;
  /// The socket file this daemon bound (none when systemd passed the socket).
  std::optional<SocketFileId> bound_id_;
  bool stopped_ = false;
  std::string failure_;
  std::function<void()> on_stop_;
  uint64_t next_client_ = 1;
  std::string cpu_model_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace mrd::daemon

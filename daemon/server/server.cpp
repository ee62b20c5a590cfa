#include "daemon/server/server.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <optional>

#include "common/util/error.h"
#include "daemon/server/core_split.h"
#include "daemon/server/host_info.h"
#include "daemon/server/listen_socket.h"
#include "daemon/server/logging.h"
#include "daemon/server/session.h"

namespace mrd::daemon {

namespace asio = boost::asio;

namespace {

// The pinned policy needs a core for builds besides the timing's.
ServerConfig with_usable_policy(ServerConfig c) {
  if (c.policy == measure::TimingPolicy::Pinned) {
    size_t n = allowed_cores().size();
    if (n < 2) {
      spdlog::warn("timing policy pinned needs at least 2 cores and this process may use {}: "
                   "timing exclusive instead", n);
      c.policy = measure::TimingPolicy::Exclusive;
    }
  }
  return c;
}

}  // namespace
using local = asio::local::stream_protocol;

Server::Server(asio::io_context& io, ServerConfig config)
    : io_(io),
      config_(with_usable_policy(std::move(config))),
      acceptor_(io),
      signals_(io, SIGTERM, SIGINT, SIGHUP),
      status_timer_(io),
      accept_timer_(io),
      worker_watch_timer_(io),
      watchdog_timer_(io),
      pool_(io, config_.pool),
      dispatcher_(pool_, config_.policy),
      cpu_model_(cpu_model()) {}

Server::~Server() {
  remove_socket_file();
}

void Server::remove_socket_file() {
  if (!bound_id_) return;
  if (!unlink_if_ours(socket_path_, *bound_id_))
    spdlog::info("not removing {}: it is no longer the socket this measurerd bound", socket_path_);
  bound_id_.reset();
}

void Server::start() {
  int fd = config_.socket_path.empty() ? systemd_listen_fd() : -1;
  if (fd >= 0) {
    acceptor_.assign(local(), fd);
    set_close_on_exec(fd);
    socket_path_ = acceptor_.local_endpoint().path();
    spdlog::info("listening on {} (socket from systemd)", socket_path_);
  } else {
    socket_path_ = config_.socket_path.empty() ? default_socket_path() : config_.socket_path;
    bound_id_ = bind_listen(acceptor_, socket_path_);
    spdlog::info("listening on {}", socket_path_);
  }
  set_peer_policy();
  wait_signal();
  do_accept();
  size_t n = config_.pool.size;
  std::string path = socket_path_;
  auto policy = config_.policy;
  pool_.start(
      [n, path, policy] {
        spdlog::info("{} workers ready; timing policy {}", n, measure::timing_policy_name(policy));
        std::string status = str_cat("READY=1\nSTATUS=serving on ", path, " with ", n, " workers");
        sd_notify(0, status.c_str());
      },
      [this](const std::string& why) {
        failure_ = str_cat("cannot start the workers: ", why);
        std::string status = str_cat("STATUS=", failure_);
        sd_notify(0, status.c_str());
        stop();
      });
  if (std::getenv("NOTIFY_SOCKET")) report_status();
  uint64_t watchdog_usec = 0;
  if (sd_watchdog_enabled(0, &watchdog_usec) > 0 && watchdog_usec > 0) {
    watchdog_interval_ = std::chrono::microseconds(std::max<uint64_t>(watchdog_usec / 2, 1));
    spdlog::info("systemd watchdog: {} ms; WATCHDOG=1 every {} ms", watchdog_usec / 1000,
                 watchdog_interval_.count() / 1000);
    kick_watchdog();
  }
  watch_workers();
}

void Server::kick_watchdog() {
  sd_notify(0, "WATCHDOG=1");
  watchdog_timer_.expires_after(watchdog_interval_);
  watchdog_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec || stopped_) return;
    kick_watchdog();
  });
}

void Server::watch_workers() {
  double timeout = config_.no_worker_timeout;
  auto interval = std::chrono::duration<double>(std::clamp(timeout / 4, 0.01, 1.0));
  worker_watch_timer_.expires_after(
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(interval));
  worker_watch_timer_.async_wait([this, timeout](boost::system::error_code ec) {
    if (ec || stopped_) return;
    bool running = false;
    for (const auto& w : pool_.status()) running = running || w.state != proto::WorkerState::Starting;
    auto now = std::chrono::steady_clock::now();
    if (running || dispatcher_.stats().queued == 0) {
      starved_since_.reset();
    } else if (!starved_since_) {
      starved_since_ = now;
    } else if (std::chrono::duration<double>(now - *starved_since_).count() >= timeout) {
      std::string why = str_cat("no measurerd-worker has been running for ", timeout,
                                " s (workers fail to start; see measurerd's log)");
      size_t n = dispatcher_.fail_waiting(why);
      spdlog::error("{}: {} waiting inputs failed", why, n);
    }
    watch_workers();
  });
}

void Server::report_status() {
  status_timer_.expires_after(std::chrono::seconds(5));
  status_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec || stopped_) return;
    auto s = status();
    std::string line =
        str_cat("STATUS=", s.degraded.empty() ? "" : "degraded: ", s.workers_alive, "/",
                s.workers, " workers, ", s.clients, " clients, ", s.queued, " queued, ",
                s.in_flight, " running, ", s.completed, " done");
    // Only changes: a notify socket that nobody reads fills up, and sd_notify then blocks.
    if (line != last_status_) sd_notify(0, line.c_str());
    last_status_ = std::move(line);
    report_status();
  });
}

void Server::set_peer_policy() {
  std::optional<gid_t> socket_gid;
  struct stat st;
  if (::stat(socket_path_.c_str(), &st) == 0)
    socket_gid = st.st_gid;
  else if (config_.allow.uids.empty() && config_.allow.gids.empty())
    spdlog::warn("cannot stat {} ({}): its group is not allowed; only root and uid {} are",
                 socket_path_, std::strerror(errno), ::geteuid());
  peer_policy_ = make_peer_policy(config_.allow, ::geteuid(), socket_gid);
  peer_policy_text_ = describe_policy(peer_policy_);
  spdlog::info("peers allowed: {}{}", peer_policy_text_,
               config_.allow.uids.empty() && config_.allow.gids.empty()
                   ? " (root, this user and the socket's group)"
                   : "");
}

void Server::do_accept() {
  acceptor_.async_accept([this](boost::system::error_code ec, local::socket socket) {
    if (stopped_ || !acceptor_.is_open()) return;
    if (ec) {
      accept_failed(ec);
      return;
    }
    if (accept_failures_ > 0) {
      spdlog::info("accepting connections again after {} failed attempts", accept_failures_);
      accept_failures_ = 0;
    }
    on_accepted(std::move(socket));
    do_accept();
  });
}

void Server::refuse(local::socket socket, uint64_t id, proto::ErrorCode code,
                    const std::string& message) {
  // Refused before reading a byte: one Error frame, then the connection closes. The session
  // is never started and never joins the live sessions.
  SessionContext refused;
  refused.max_body = config_.max_body;
  auto s = std::make_shared<Session>(std::move(socket), std::move(refused), id);
  s->close_with_error(code, message);
}

void Server::on_accepted(local::socket socket) {
  set_close_on_exec(socket.native_handle());
  auto cred = peer_credentials(socket.native_handle());
  uint64_t id = next_client_++;
  if (!peer_allowed(peer_policy_, cred)) {
    spdlog::warn("client {} refused: {} is not allowed (allowed: {})", id, describe_peer(cred),
                 peer_policy_text_);
    refuse(std::move(socket), id, proto::ErrorCode::PeerNotAllowed,
           refusal_message(cred, peer_policy_text_));
    return;
  }
  auto usage = uid_usage_.of(cred.uid);
  if (usage->connections >= config_.peer.max_connections_per_uid) {
    spdlog::warn("client {} refused: uid {} already has {} connections", id, cred.uid,
                 usage->connections);
    refuse(std::move(socket), id, proto::ErrorCode::TooManyConnections,
           str_cat("uid ", cred.uid, " already has ", usage->connections,
                   " connections to this measurerd, the most it may have "
                   "(measurerd --max-connections-per-uid)"));
    return;
  }
  spdlog::info("client {} connected: {}", id, describe_peer(cred));
  SessionContext ctx;
  ctx.dispatcher = &dispatcher_;
  ctx.manager = &sessions_;
  ctx.welcome = [this] { return welcome(); };
  ctx.status = [this] { return status(); };
  ctx.max_body = config_.max_body;
  ctx.limits.max_states = config_.max_states;
  ctx.max_requests = config_.peer.max_requests_per_connection;
  ctx.max_unsent = config_.peer.max_unsent;
  ctx.hello_timeout = config_.peer.hello_timeout;
  ctx.idle_timeout = config_.peer.idle_timeout;
  ctx.uid_usage = std::move(usage);
  ctx.max_uid_requests = config_.peer.max_requests_per_uid;
  TimingCaps caps = config_.caps;
  ctx.check_caps = [caps](const measure::MeasureOptions& o) { return check_timing_caps(o, caps); };
  auto s = std::make_shared<Session>(std::move(socket), std::move(ctx), id);
  sessions_.join(s);
  s->start();
}

void Server::accept_failed(const boost::system::error_code& ec) {
  // Out of descriptors (EMFILE, ENFILE) or kernel memory, the pending connection stays in the
  // backlog and the acceptor is readable again at once: re-arming now would spin. Wait, with a
  // growing pause, and say so once per episode.
  if (accept_failures_++ == 0) {
    accept_backoff_ = kAcceptBackoffMin;
    spdlog::warn("accept: {}; retrying every {} ms at most until a connection is accepted",
                 ec.message(), kAcceptBackoffMax.count());
  } else {
    accept_backoff_ = std::min(accept_backoff_ * 2, kAcceptBackoffMax);
  }
  accept_timer_.expires_after(accept_backoff_);
  accept_timer_.async_wait([this](boost::system::error_code tec) {
    if (tec || stopped_) return;
    do_accept();
  });
}

void Server::wait_signal() {
  signals_.async_wait([this](boost::system::error_code ec, int sig) {
    if (ec) return;
    if (sig == SIGHUP) {
      reopen_logs();
      wait_signal();
      return;
    }
    spdlog::info("signal {} received; stopping", sig);
    stop();
  });
}

void Server::stop() {
  if (stopped_) return;
  stopped_ = true;
  sd_notify(0, "STOPPING=1\nSTATUS=stopping");
  if (on_stop_) on_stop_();
  boost::system::error_code ec;
  acceptor_.close(ec);
  signals_.cancel(ec);
  status_timer_.cancel();
  accept_timer_.cancel();
  worker_watch_timer_.cancel();
  watchdog_timer_.cancel();
  dispatcher_.stop();
  sessions_.stop_all(proto::ErrorCode::ShuttingDown, "measurerd is shutting down");
  pool_.stop();
  remove_socket_file();
}

proto::Welcome Server::welcome() const {
  proto::Welcome w;
  w.version = proto::kProtocolVersion;
  w.server_version = "measurerd 0.1.0";
  w.cpu_model = cpu_model_;
  w.cores = core_count();
  w.workers = static_cast<uint32_t>(config_.pool.size);
  w.policy = config_.policy;
  w.max_body = config_.max_body;
  w.max_states = config_.max_states;
  return w;
}

proto::StatusReply Server::status() const {
  proto::StatusReply s;
  auto d = dispatcher_.stats();
  s.workers = static_cast<uint32_t>(pool_.size());
  s.worker_list = pool_.status();
  s.workers_alive = static_cast<uint32_t>(s.worker_list.size());
  s.queued = d.queued;
  s.in_flight = d.in_flight;
  s.completed = d.completed;
  s.throughput = d.throughput;
  s.cache_hits = d.cache_hits;
  s.uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  s.clients = static_cast<uint32_t>(sessions_.size());
  s.requests = static_cast<uint32_t>(d.requests);
  s.policy = config_.policy;
  s.degraded = pool_.degraded();
  return s;
}

}  // namespace mrd::daemon

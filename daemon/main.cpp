// measurerd: the measurement daemon. Runs in the foreground (never forks into the
// background); under systemd it takes its socket from socket activation and reports READY=1.
#include <spdlog/spdlog.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <boost/asio.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "common/util/error.h"
#include "common/util/version_text.h"
#include "daemon/broker/node_options.h"
#include "daemon/broker/node_start.h"
#include "daemon/server/host_info.h"
#include "daemon/server/logging.h"
#include "daemon/server/server.h"

namespace fs = std::filesystem;
using namespace mrd;

namespace {

constexpr const char* kDefaultConfigFile = "/etc/measurerd/measurerd.conf";

std::string default_worker_path() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "measurerd-worker";
  return (self.parent_path() / "measurerd-worker").string();
}

std::string default_cache_dir() {
  if (const char* d = std::getenv("CACHE_DIRECTORY"); d && *d) {
    std::string dir(d);
    return dir.substr(0, dir.find(':'));
  }
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/measurerd";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/measurerd";
  return "/tmp/measurerd-cache-" + std::to_string(getuid());
}

/// Raises the soft open-file limit to the hard one: each connection takes a descriptor, and the
/// usual soft default (1024) is a few hundred idle connections away.
void raise_open_file_limit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur >= lim.rlim_max) return;
  lim.rlim_cur = lim.rlim_max;
  if (::setrlimit(RLIMIT_NOFILE, &lim) != 0)
    spdlog::warn("cannot raise the open-file limit to {}: {}", lim.rlim_max, std::strerror(errno));
}

void make_private_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  MRD_USER_CHECK(!ec, "cannot create cache directory ", dir, ": ", ec.message());
  MRD_USER_CHECK(::chmod(dir.c_str(), 0700) == 0, "cannot chmod 0700 ", dir);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "measurerd: measures tensor-program candidates for auto-tuners in a pool of spawned "
      "worker processes.\n"
      "Exit codes: 0 stopped cleanly (SIGTERM/SIGINT), 1 could not start (socket, workers, "
      "directories), 2 bad command line or configuration file."};
  app.set_version_flag("--version", mrd::version_text("measurerd"),
                       "print the version, git commit, compiler and LLVM version, and exit");
  daemon::ServerConfig config;
  std::string policy = "exclusive", log_file, log_level = "info";
  config.pool.size = daemon::core_count();
  config.pool.worker_path = default_worker_path();
  config.pool.cache_dir = default_cache_dir();
  bool foreground = true;
  app.add_option("--socket", config.socket_path,
                 "Unix socket path (default: the socket from systemd, else "
                 "$RUNTIME_DIRECTORY/measurerd.sock, /run/measurerd/measurerd.sock, "
                 "$XDG_RUNTIME_DIR/measurerd.sock)");
  app.add_option("--workers", config.pool.size, "worker processes (default: cores)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--worker-path", config.pool.worker_path,
                 "measurerd-worker program (default: next to measurerd)");
  app.add_option("--cache-dir", config.pool.cache_dir,
                 "build cache, made 0700 (default: $CACHE_DIRECTORY, "
                 "$XDG_CACHE_HOME/measurerd or ~/.cache/measurerd)");
  app.add_option("--timing-policy", policy,
                 "exclusive: a timing overlaps no build and no other timing; pinned: one "
                 "timing at a time on the last num_cores cores (the task's), builds on the "
                 "others (with fewer than 2 cores: exclusive, logged); shared: no such "
                 "guarantee")
      ->check(CLI::IsMember({"exclusive", "pinned", "shared"}))
      ->capture_default_str();
  app.add_option("--limit-as-mb", config.pool.limits.address_space_mb,
                 "address-space limit of each worker in MiB (0: none)")
      ->capture_default_str();
  app.add_option("--limit-cpu-seconds", config.pool.limits.cpu_seconds,
                 "CPU-time limit of each worker process in seconds (0: none); a worker retires "
                 "at half of it")
      ->capture_default_str();
  app.add_option("--limit-open-files", config.pool.limits.open_files,
                 "open-file limit of each worker")
      ->capture_default_str();
  app.add_option("--limit-task-cache-mb", config.pool.limits.task_cache_mb,
                 "MiB of task bytes each worker keeps decoded, besides at most 16 "
                 "tasks; a job of a kept task does not carry the task again")
      ->check(CLI::Range(uint64_t(0), uint64_t(1) << 20))
      ->capture_default_str();
  app.add_option("--compiler", config.pool.compiler,
                 "C compiler the workers use (default: the worker's, cc)");
  app.add_option("--cflags", config.pool.cflags,
                 "compiler flags the workers use (default: the worker's, \"-O3 -march=native "
                 "-fPIC -shared -fopenmp\")");
  app.add_option("--max-body", config.max_body, "largest frame body accepted, bytes")
      ->check(CLI::Range(uint32_t(1024), uint32_t(1u << 30)))
      ->capture_default_str();
  std::vector<std::string> allow_uids, allow_gids;
  app.add_option("--allow-uid", allow_uids,
                 "a user (name or uid) who may connect; repeatable or comma-separated. A peer "
                 "is allowed when its uid is allowed, or its primary gid or one of its "
                 "supplementary groups is an allowed gid. Root and measurerd's own user are "
                 "always allowed. Without --allow-uid/--allow-gid the socket file's group is "
                 "allowed; with either, the listed users and groups replace it. A refused peer "
                 "gets Error PEER_NOT_ALLOWED at connect and a warning is logged")
      ->delimiter(',')
      ->type_name("USER");
  app.add_option("--allow-gid", allow_gids,
                 "a group (name or gid) whose members may connect; repeatable or "
                 "comma-separated (see --allow-uid)")
      ->delimiter(',')
      ->type_name("GROUP");
  auto& peer = config.peer;
  app.add_option("--hello-timeout", peer.hello_timeout,
                 "seconds a new connection has to send its Hello (0: no limit)")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  app.add_option("--idle-timeout", peer.idle_timeout,
                 "seconds a connection may stay idle: no frame received, no reply written, no "
                 "request in flight or its replies unread (0: no limit)")
      ->check(CLI::Range(0.0, 86400.0 * 365))
      ->capture_default_str();
  app.add_option("--max-connections-per-uid", peer.max_connections_per_uid,
                 "connections one uid may have open at once")
      ->check(CLI::Range(size_t(1), size_t(1) << 20))
      ->capture_default_str();
  app.add_option("--max-requests-per-uid", peer.max_requests_per_uid,
                 "requests one uid may have in flight over all its connections")
      ->check(CLI::Range(size_t(1), size_t(1) << 24))
      ->capture_default_str();
  app.add_option("--max-requests-per-connection", peer.max_requests_per_connection,
                 "requests one connection may have in flight")
      ->check(CLI::Range(size_t(1), size_t(1) << 24))
      ->capture_default_str();
  app.add_option("--max-unsent-bytes", peer.max_unsent,
                 "reply bytes queued for a connection past which measurerd stops reading it and "
                 "starting its jobs until it reads")
      ->check(CLI::Range(size_t(4096), size_t(1) << 32))
      ->capture_default_str();
  app.add_option("--max-min-repeat-ms", config.caps.max_min_repeat_ms,
                 "largest min_repeat_ms a request may ask for")
      ->check(CLI::Range(0.0, 600000.0))
      ->capture_default_str();
  app.add_option("--max-run-timeout", config.caps.max_run_timeout,
                 "largest run timeout a request may ask for, seconds")
      ->check(CLI::Range(0.001, 3600.0))
      ->capture_default_str();
  app.add_option("--max-calls", config.caps.max_calls,
                 "largest repeat x number a request may ask for")
      ->check(CLI::Range(uint64_t(1), uint64_t(1000000000)))
      ->capture_default_str();
  app.add_option("--worker-start-attempts", config.pool.start_attempts,
                 "starts in a row a worker may fail (spawn error, or exit before it is ready; "
                 "1 s apart) before measurerd gives up on it: before serving, measurerd then "
                 "exits 1 with the reason; once serving, it runs short and `measurer status` "
                 "reports it degraded")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--no-worker-timeout", config.no_worker_timeout,
                 "seconds queued inputs wait while no worker is running (all fail to start) "
                 "before they fail with UNKNOWN_ERROR")
      ->check(CLI::Range(0.01, 86400.0))
      ->capture_default_str();
  app.add_option("--log-file", log_file, "log to this file instead of stderr (SIGHUP reopens it)");
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")
      ->capture_default_str();
  app.add_flag("--test-faults", config.pool.test_faults,
               "testing only: workers accept fault.* workloads (they crash, hang or exhaust "
               "memory on purpose); never use in production");
  app.add_flag("--foreground", foreground,
               "run in the foreground (always the case; accepted for "
               "scripts)");
  daemon::NodeConfig node_config;
  daemon::add_node_options(app, node_config);
  // Every long option above may also be set in the configuration file, as `name = value`
  // lines without the dashes; the command line wins over the file.
  app.set_config("--config", kDefaultConfigFile,
                 "configuration file of `key = value` lines, keys being the long options "
                 "without their dashes (e.g. `workers = 4`, `allow-gid = [\"a\", \"b\"]`); "
                 "options on the command line win over it. The default file may be missing; "
                 "a file named here must exist; --config '' reads none")
      ->type_name("FILE")
      ->capture_default_str();
  app.allow_config_extras(CLI::config_extras_mode::error);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  config.policy = policy == "shared"   ? measure::TimingPolicy::Shared
                  : policy == "pinned" ? measure::TimingPolicy::Pinned
                                       : measure::TimingPolicy::Exclusive;

  // A worker or client that goes away mid-write is an EPIPE error on that connection, which
  // the daemon handles; never a signal that ends the daemon.
  ::signal(SIGPIPE, SIG_IGN);
  try {
    daemon::setup_logging(log_file, log_level);
    raise_open_file_limit();
    for (const auto& u : allow_uids) config.allow.uids.push_back(daemon::resolve_uid(u));
    for (const auto& g : allow_gids) config.allow.gids.push_back(daemon::resolve_gid(g));
    daemon::finish_node_config(node_config);
    make_private_dir(config.pool.cache_dir);
    MRD_USER_CHECK(::access(config.pool.worker_path.c_str(), X_OK) == 0,
                   "worker program not executable: ", config.pool.worker_path);
    if (config.pool.test_faults)
      spdlog::warn("--test-faults: workers accept fault.* workloads; testing only");
    boost::asio::io_context io;
    daemon::Server server(io, config);
    server.start();
    spdlog::info("measurerd started: pid {}, {} workers, cache {}", getpid(), config.pool.size,
                 config.pool.cache_dir);
    auto node = daemon::start_node(io, server, node_config);
    io.run();
    if (node) node->stop();
    if (!server.failure().empty()) {
      spdlog::error("measurerd could not start: {}", server.failure());
      return 1;
    }
    spdlog::info("measurerd stopped");
    return 0;
  } catch (const UserError& e) {
    spdlog::error("{}", e.what());
    return 1;
  } catch (const std::exception& e) {
    spdlog::critical("internal error: {}", e.what());
    return 1;
  }
}

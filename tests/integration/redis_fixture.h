// A real redis-server for the broker tests: on a private Unix socket (no TCP port) in a fresh
// temporary directory, without persistence, started with --supervised systemd so that its
// READY=1 says when it serves — never a sleep. kill() and start() again make a broker restart
// that loses every key, as a restart without persistence does.
#pragma once

#include <signal.h>

#include <boost/process.hpp>
#include <catch2/catch.hpp>
#include <string>

#include "common/broker/broker_keys.h"
#include "common/broker/redis_connection.h"
#include "common/broker/redis_url.h"
#include "daemon_fixture.h"

namespace mrd::testing {

class RedisServer {
 public:
  /// `extra`: more redis-server arguments (e.g. ACL users).
  explicit RedisServer(std::vector<std::string> extra = {})
      : socket_((dir_.path / "redis.sock").string()), extra_(std::move(extra)) {
    start();
  }
  ~RedisServer() {
    if (child_.running()) {
      ::kill(child_.id(), SIGTERM);
      std::error_code ec;
      child_.wait(ec);
    }
  }

  void start() {
    NotifySocket notify(dir_.path);
    auto env = boost::this_process::environment();
    env["NOTIFY_SOCKET"] = notify.path;
    std::string exe = bp::search_path("redis-server").string();
    REQUIRE(!exe.empty());
    std::vector<std::string> args = {"--port", "0", "--unixsocket", socket_, "--unixsocketperm",
                                     "700", "--save", "", "--appendonly", "no", "--supervised",
                                     "systemd", "--dir", dir_.path.string(), "--logfile",
                                     (dir_.path / "redis.log").string()};
    args.insert(args.end(), extra_.begin(), extra_.end());
    child_ = bp::child(exe, bp::args(args), env);
    REQUIRE(notify.wait_for("READY=1"));
  }
  /// SIGKILL: the broker goes away at once, with everything it held.
  void kill() {
    ::kill(child_.id(), SIGKILL);
    child_.wait();
  }

  std::string url() const { return "unix://" + socket_; }
  const std::string& socket_path() const { return socket_; }
  const fs::path& dir() const { return dir_.path; }
  broker::RedisEndpoint endpoint() const { return broker::parse_redis_url(url()); }
  broker::RedisConnection connect() const { return broker::RedisConnection(endpoint()); }

 private:
  TempDir dir_;
  std::string socket_;
  std::vector<std::string> extra_;
  bp::child child_;
};

/// A measurerd that is also a node of `redis` for `device_key`, named `name`; jobs of a silent
/// node are taken over after one second.
inline std::unique_ptr<Daemon> start_node(const RedisServer& redis, const std::string& device_key,
                                          const std::string& name,
                                          std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--broker",          redis.url(), "--device-key", device_key,
                                   "--node-name",       name,        "--timing-policy", "shared",
                                   "--broker-claim-idle", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  return std::make_unique<Daemon>(1, args);
}

/// Entries of the job stream delivered to `consumer` and not yet answered.
inline size_t held_by(broker::RedisConnection& c, const std::string& device_key,
                      const std::string& consumer) {
  auto r = c.command({"XPENDING", broker::jobs_stream(device_key), broker::kGroup, "-", "+",
                      "100", consumer});
  return r.elements.size();
}

}  // namespace mrd::testing

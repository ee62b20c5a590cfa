// Peer checks on a real daemon: who may connect (--allow-uid / --allow-gid and the defaults),
// what a refused peer receives (one Error PEER_NOT_ALLOWED frame, without sending a byte) and
// logs, and that the daemon goes on serving everyone else. Other users are played by the
// as_user helper, which needs root; without root those cases are skipped with a warning.
#include <sys/stat.h>
#include <unistd.h>

#include <boost/process.hpp>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "daemon_fixture.h"

using namespace mrd;
using namespace mrd::testing;

namespace {

constexpr uid_t kNobody = 65534;

struct Run {
  int exit_code = -1;
  std::string output;  ///< stdout and stderr
};

/// Runs `args` through the as_user helper as uid/gid with supplementary `groups` ("-": none).
Run as_user(uid_t uid, gid_t gid, const std::string& groups, std::vector<std::string> args) {
  std::vector<std::string> all = {std::to_string(uid), std::to_string(gid), groups};
  all.insert(all.end(), args.begin(), args.end());
  bp::ipstream out;
  bp::child c(build_path("tests/as_user"), bp::args(all), (bp::std_out & bp::std_err) > out);
  Run r;
  for (std::string line; std::getline(out, line);) r.output += line + "\n";
  c.wait();
  r.exit_code = c.exit_code();
  return r;
}

/// What a connection from uid/gid/groups that sends nothing receives.
Run probe(const Daemon& d, uid_t uid, gid_t gid, const std::string& groups) {
  return as_user(uid, gid, groups, {"--probe", d.socket()});
}

/// `measurer status` run as uid/gid/groups.
Run status_as(const Daemon& d, uid_t uid, gid_t gid, const std::string& groups) {
  return as_user(uid, gid, groups,
                 {build_path("client/measurer"), "--socket", d.socket(), "status"});
}

bool is_root() {
  if (::geteuid() == 0) return true;
  WARN(
      "skipped: playing other users needs root (setuid in the as_user helper); "
      "this test runs as uid "
      << ::geteuid());
  return false;
}

/// Lets other users reach the socket inside the daemon's private directory (0700). False, with
/// a warning, when a directory above it is closed to them (a private TMPDIR).
bool open_directory(const Daemon& d) {
  REQUIRE(::chmod(d.dir().c_str(), 0711) == 0);
  for (fs::path p = d.dir().parent_path(); !p.empty(); p = p.parent_path()) {
    struct stat st;
    if (::stat(p.c_str(), &st) != 0 || !(st.st_mode & S_IXOTH)) {
      WARN("skipped: other users cannot reach " << d.socket() << " (" << p
                                                << " is not searchable by them)");
      return false;
    }
    if (p == p.root_path()) break;
  }
  return true;
}

bool served(const std::string& socket) {
  client::Client c(socket);
  int ok = 0;
  c.measure(matmul_task(16), {"[]"}, quick_options(),
            [&](uint32_t, const measure::MeasureResult& r) {
              ok += r.error_no == measure::MeasureErrorNo::NoError;
            });
  return ok == 1;
}

}  // namespace

TEST_CASE("by default root and the daemon's own user are accepted and the policy is logged") {
  Daemon d(1);
  client::Client c(d.socket());
  CHECK(c.status().workers_alive == 1);
  std::string log = d.log();
  CHECK(log.find("peers allowed: uids 0") != std::string::npos);
  CHECK(log.find("(root, this user and the socket's group)") != std::string::npos);
  CHECK(log.find("connected: pid " + std::to_string(::getpid()) + " uid " +
                 std::to_string(::geteuid())) != std::string::npos);
  CHECK(log.find("refused") == std::string::npos);
  // The socket's group is the allowed group.
  struct stat st;
  REQUIRE(::stat(d.socket().c_str(), &st) == 0);
  CHECK(log.find("; gids " + std::to_string(st.st_gid)) != std::string::npos);
}

TEST_CASE("an unknown --allow-uid or --allow-gid name stops measurerd at start") {
  TempDir dir;
  for (auto flag : {"--allow-uid", "--allow-gid"}) {
    INFO(flag);
    bp::ipstream err;
    bp::child c(
        build_path("daemon/measurerd"),
        bp::args({"--socket", (dir.path / "m.sock").string(), "--workers", "1", "--cache-dir",
                  (dir.path / "cache").string(), flag, "0,no-such-name-here"}),
        bp::std_out > bp::null, bp::std_err > err);
    std::string text;
    for (std::string line; std::getline(err, line);) text += line + "\n";
    c.wait();
    CHECK(c.exit_code() == 1);
    CHECK(text.find(std::string(flag) + " no-such-name-here: no such") != std::string::npos);
    CHECK(!fs::exists(dir.path / "m.sock"));
  }
}

TEST_CASE("a peer outside the default policy gets PEER_NOT_ALLOWED while others are served") {
  if (!is_root()) return;
  Daemon d(1);
  if (!open_directory(d)) return;
  // World-writable, as a misconfigured socket would be: the peer check is what stands.
  REQUIRE(::chmod(d.socket().c_str(), 0666) == 0);
  client::Client other(d.socket());  // connected before, and served after

  Run refused = probe(d, kNobody, kNobody, "-");
  INFO(refused.output);
  CHECK(refused.exit_code == 0);
  CHECK(count_of(refused.output, "frame ") == 1);  // one Error frame, sent unasked
  CHECK(refused.output.find("error 11 uid 65534 gid 65534 may not use this measurerd") !=
        std::string::npos);
  CHECK(refused.output.find("--allow-uid 65534") != std::string::npos);
  CHECK(refused.output.find("eof") != std::string::npos);  // then the daemon closed
  std::string log = d.log();
  CHECK(log.find("[warning] client") != std::string::npos);
  CHECK(log.find("refused: pid") != std::string::npos);
  CHECK(log.find("uid 65534 gid 65534 groups none is not allowed") != std::string::npos);

  // The measurer CLI says why, and exits 3 (measurerd refused).
  Run cli = status_as(d, kNobody, kNobody, "-");
  INFO(cli.output);
  CHECK(cli.exit_code == 3);
  CHECK(cli.output.find("measurer: measurerd: PEER_NOT_ALLOWED: uid 65534 gid 65534") !=
        std::string::npos);
  CHECK(cli.output.find("closed the connection") == std::string::npos);

  // A member of the socket's group is allowed, as a supplementary or as the primary group.
  struct stat st;
  REQUIRE(::stat(d.socket().c_str(), &st) == 0);
  std::string socket_group = std::to_string(st.st_gid);
  Run member = status_as(d, kNobody, kNobody, socket_group);
  INFO(member.output);
  CHECK(member.exit_code == 0);
  CHECK(member.output.find("workers        1/1") != std::string::npos);
  CHECK(status_as(d, kNobody, st.st_gid, "-").exit_code == 0);

  CHECK(process_exists(d.pid()));
  CHECK(other.status().workers_alive == 1);
  CHECK(served(d.socket()));
}

TEST_CASE("allow-gid replaces the socket's group and supplementary groups count") {
  if (!is_root()) return;
  Daemon d(1, {"--allow-gid", "4242"});
  if (!open_directory(d)) return;
  // Group 0 still opens the 0660 socket file, but no longer passes the peer check.
  Run refused = probe(d, kNobody, kNobody, "0");
  INFO(refused.output);
  CHECK(refused.output.find("error 11 uid 65534 gid 65534 may not use") != std::string::npos);
  CHECK(refused.output.find("gids 4242") != std::string::npos);
  CHECK(d.log().find("uid 65534 gid 65534 groups 0 is not allowed") != std::string::npos);

  Run supplementary = status_as(d, kNobody, kNobody, "0,4242");
  INFO(supplementary.output);
  CHECK(supplementary.exit_code == 0);
  Run primary = status_as(d, kNobody, 4242, "0");
  INFO(primary.output);
  CHECK(primary.exit_code == 0);
  CHECK(served(d.socket()));  // root is always allowed
}

TEST_CASE("allow-uid admits that user and replaces the socket's group") {
  if (!is_root()) return;
  Daemon d(1, {"--allow-uid", std::to_string(kNobody), "--allow-uid", "1234,1235"});
  if (!open_directory(d)) return;
  std::string log = d.log();
  CHECK(log.find("peers allowed: uids 0 (root), 1234") != std::string::npos);
  CHECK(log.find(", 65534") != std::string::npos);
  CHECK(log.find("; gids none") != std::string::npos);
  Run allowed = status_as(d, kNobody, kNobody, "0");
  INFO(allowed.output);
  CHECK(allowed.exit_code == 0);
  // The socket's group (0 here) is no longer allowed by itself.
  Run refused = probe(d, 4321, 4321, "0");
  INFO(refused.output);
  CHECK(refused.output.find("error 11 uid 4321 gid 4321") != std::string::npos);
  CHECK(refused.output.find("gids none") != std::string::npos);
  CHECK(served(d.socket()));
}
